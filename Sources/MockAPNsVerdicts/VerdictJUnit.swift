import MockAPNsCore
/// A report as JUnit XML, the test-result format CI systems read: one test suite per
/// provider, one test case per rule, and each broken rule a failure whose text is the
/// evidence (the findings, with the journal sequences of the notifications they rest on).
package enum VerdictJUnit {
    package static func xml(_ report: VerdictReport, examples: Int = 20) -> String {
        let failures = report.providers.reduce(0) { $0 + $1.rules.filter { !$0.passed }.count }
        let tests = report.providers.reduce(0) { $0 + $1.rules.count }
        var xml = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
        xml += #"<testsuites name="MockAPNs provider verdicts" tests="\#(tests)" failures="\#(failures)" errors="0" time="0">"# + "\n"
        for provider in report.providers {
            let broken = provider.rules.filter { !$0.passed }.count
            let name = escape(provider.provider.name)
            xml += #"  <testsuite name="\#(name)" tests="\#(provider.rules.count)" failures="\#(broken)" errors="0" skipped="0" time="0">"# + "\n"
            xml += "    <properties>\n"
            let tally = provider.notifications
            for (key, value) in [
                ("connections", provider.connections), ("notifications.tried", tally.tried),
                ("notifications.acceptedAtOnce", tally.acceptedAtOnce),
                ("notifications.acceptedAfterRetries", tally.acceptedAfterRetries),
                ("notifications.refused", tally.refused), ("notifications.lost", tally.lost),
                ("notifications.sentAgainAfterAcceptance", tally.sentAgainAfterAcceptance),
            ] {
                xml += #"      <property name="\#(key)" value="\#(value)"/>"# + "\n"
            }
            xml += "    </properties>\n"
            for outcome in provider.rules {
                xml += #"    <testcase classname="\#(name)" name="\#(outcome.rule.rawValue)" time="0">"#
                if outcome.passed {
                    xml += "</testcase>\n"
                    continue
                }
                let message = "\(outcome.rule.title): \(outcome.findings) finding\(outcome.findings == 1 ? "" : "s")"
                xml += "\n" + #"      <failure message="\#(escape(message))" type="\#(outcome.rule.rawValue)">"#
                var evidence: [String] = []
                for example in outcome.examples.prefix(examples) {
                    var line = "\(example.check.rawValue): \(example.message)"
                    if !example.notifications.isEmpty {
                        line += " (notifications " + example.notifications.map { "#\($0)" }.joined(separator: ", ") + ")"
                    }
                    if !example.connections.isEmpty {
                        line += " (connections " + example.connections.map { "c\($0)" }.joined(separator: ", ") + ")"
                    }
                    evidence.append(line)
                }
                if outcome.findings > outcome.examples.prefix(examples).count {
                    evidence.append("… and \(outcome.findings - outcome.examples.prefix(examples).count) more")
                }
                xml += escape(evidence.joined(separator: "\n")) + "</failure>\n    </testcase>\n"
            }
            xml += "    <system-out>\(escape(tally.headline))</system-out>\n"
            xml += "  </testsuite>\n"
        }
        xml += "</testsuites>\n"
        return xml
    }

    /// Text as XML character data or an attribute value. Characters XML 1.0 cannot carry at
    /// all (most control characters) become U+FFFD.
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\n", "\t": out.unicodeScalars.append(scalar)
            case "\r": out += "&#13;"
            default:
                let allowed = scalar.value >= 0x20 && !(0xD800...0xDFFF).contains(scalar.value)
                    && scalar.value != 0xFFFE && scalar.value != 0xFFFF
                out.unicodeScalars.append(allowed ? scalar : "\u{FFFD}")
            }
        }
        return out
    }
}
