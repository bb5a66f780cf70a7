import Foundation
import XCTest

/// Dependencies point one way and say what they are: every module a target imports is one
/// its manifest entry declares (not one that happens to come along with another), a declared
/// dependency is used, and the journal's vocabulary depends on no protocol module.
final class DependencyTests: XCTestCase {
    /// Modules of the toolchain and the system, which no manifest entry names.
    private static let system: Set<String> = [
        "Foundation", "FoundationEssentials", "Dispatch", "Glibc", "Musl", "Darwin", "Synchronization", "XCTest", "Testing",
    ]

    func testEveryImportIsDeclaredAndEveryDeclarationImported() throws {
        let targets = try Self.manifestTargets()
        XCTAssertGreaterThan(targets.count, 20, "the manifest's targets were not found")
        var undeclared: [String] = []
        var unused: [String] = []
        for target in targets {
            let imports = try Self.imports(under: Fixtures.root + "/" + target.path)
            guard !imports.isEmpty else { continue }  // a C target
            let missing = imports.subtracting(target.dependencies).subtracting(Self.system).subtracting([target.name])
            undeclared += missing.sorted().map { "\(target.name) imports \($0)" }
            // C targets and the fuzzing driver are linked, not imported.
            let idle = target.dependencies.subtracting(imports).filter { !$0.hasPrefix("C") }
            unused += idle.sorted().map { "\(target.name) declares \($0)" }
        }
        XCTAssertEqual(undeclared, [], "imports the manifest does not declare")
        XCTAssertEqual(unused, [], "dependencies no source imports")
    }

    /// The journal keeps what every protocol records; it knows none of them.
    func testTheJournalDependsOnNoProtocolModule() throws {
        let journal = try XCTUnwrap(try Self.manifestTargets().first { $0.name == "MockAPNsJournal" })
        let protocols: Set<String> = [
            "MockAPNsLegacy", "MockAPNsBroadcast", "MockAPNsWebPush", "MockAPNsHTTP2", "MockAPNsTLS", "MockAPNsConnections",
            "MockAPNsUpstream", "MockAPNsScenario", "MockAPNsVerdicts", "MockAPNsDelivery", "MockAPNsObservation",
            "MockAPNsDeliveryRuntime", "MockAPNsLogging",
        ]
        XCTAssertEqual(journal.dependencies.intersection(protocols).sorted(), [])
        XCTAssertEqual(try Self.imports(under: Fixtures.root + "/" + journal.path).intersection(protocols).sorted(), [])
    }

    /// Edges that would point the wrong way: the plumbing every listener shares knows nothing
    /// of the readers beside the server; the server's log lines know nothing of the journal;
    /// the journal's readers and the delivery runtime are fed side by side, neither through
    /// the other.
    func testNoDependencyPointsTheWrongWay() throws {
        let forbidden: [(from: String, to: String)] = [
            ("MockAPNsConnections", "MockAPNsObservation"),
            ("MockAPNsVerdicts", "MockAPNsLegacy"),
            ("MockAPNsJournal", "MockAPNsObservation"),
            ("MockAPNsLogging", "MockAPNsJournal"),
            ("MockAPNsObservation", "MockAPNsDeliveryRuntime"),
            ("MockAPNsDeliveryRuntime", "MockAPNsObservation"),
            ("MockAPNsObservation", "MockAPNsScenario"),
            ("MockAPNsDeliveryRuntime", "MockAPNsScenario"),
            ("MockAPNsCore", "MockAPNsJournal"),
            ("MockAPNsWire", "MockAPNsCore"),
        ]
        let targets = try Self.manifestTargets()
        for edge in forbidden {
            let target = try XCTUnwrap(targets.first { $0.name == edge.from }, edge.from)
            XCTAssertFalse(target.dependencies.contains(edge.to), "\(edge.from) depends on \(edge.to)")
        }
    }

    /// Tests mirror the targets: each target of rules or codecs has a test target of its own.
    func testEachTargetOfRulesHasItsTestTarget() throws {
        let names = Set(try Self.manifestTargets().map(\.name))
        let logic = [
            "MockAPNsWire", "MockAPNsJSON", "MockAPNsCore", "MockAPNsLegacy", "MockAPNsBroadcast", "MockAPNsScenario",
            "MockAPNsVerdicts", "MockAPNsDelivery", "MockAPNsWebPush", "MockAPNsJournal", "MockAPNsTLS", "MockAPNsHTTP2",
            "MockAPNsLegacyServer", "MockAPNsAnswer", "MockAPNsLogging", "MockAPNsObservation", "MockAPNsCapture",
        ]
        XCTAssertEqual(logic.filter { !names.contains($0 + "Tests") }, [], "targets without a test target")
    }

    // MARK: Reading the manifest and the sources

    struct Target {
        var name: String
        var path: String
        var dependencies: Set<String>
    }

    /// Every Swift target of Package.swift with its folder and its declared dependencies
    /// (targets by name, products by their module's name).
    static func manifestTargets() throws -> [Target] {
        let manifest = try String(contentsOfFile: Fixtures.root + "/Package.swift", encoding: .utf8)
            .split(separator: "\n", omittingEmptySubsequences: false)
            .map { line in line.range(of: "//").map { line[..<$0.lowerBound] } ?? line }
            .joined(separator: "\n")
        var targets: [Target] = []
        let declaration = /\.(target|executableTarget|testTarget)\(\s*name:\s*"(\w+)"/
        for match in manifest.matches(of: declaration) {
            let call = Self.call(in: manifest, from: match.range.lowerBound)
            var dependencies: Set<String> = []
            if let list = call.firstMatch(of: /dependencies:\s*\[/) {
                let inner = Self.bracketed(in: call, from: list.range.upperBound)
                for product in inner.matches(of: /\.product\(\s*name:\s*"(\w+)"/) { dependencies.insert(String(product.1)) }
                let withoutProducts = inner.replacing(/\.product\([^)]*\)/, with: "")
                for name in withoutProducts.matches(of: /"(\w+)"/) { dependencies.insert(String(name.1)) }
            }
            let kind = String(match.1)
            let name = String(match.2)
            let path = call.firstMatch(of: /path:\s*"([^"]+)"/).map { String($0.1) }
                ?? (kind == "testTarget" ? "Tests/\(name)" : "Sources/\(name)")
            targets.append(Target(name: name, path: path, dependencies: dependencies))
        }
        return targets
    }

    /// The modules the Swift files under `folder` import: the import statements a file opens
    /// with (later lines that look like one are text, such as a script in a string literal).
    static func imports(under folder: String) throws -> Set<String> {
        guard let files = FileManager.default.enumerator(atPath: folder) else { return [] }
        var modules: Set<String> = []
        let statement = /^\s*(?:@_exported\s+|@_implementationOnly\s+|@testable\s+|internal\s+|package\s+|public\s+)?import\s+(?:struct\s+|class\s+|enum\s+|protocol\s+|func\s+|typealias\s+)?(\w+)/
        for case let file as String in files where file.hasSuffix(".swift") {
            let text = try String(contentsOfFile: folder + "/" + file, encoding: .utf8)
            for line in text.split(separator: "\n") {
                if let match = line.firstMatch(of: statement) {
                    modules.insert(String(match.1))
                    continue
                }
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                guard trimmed.isEmpty || trimmed.hasPrefix("//") || trimmed.hasPrefix("#") || trimmed.hasPrefix("@preconcurrency") else { break }
            }
        }
        return modules
    }

    /// The text of the call that starts at `start`, up to its closing parenthesis.
    private static func call(in text: String, from start: String.Index) -> Substring {
        guard let open = text[start...].firstIndex(of: "(") else { return text[start...] }
        let close = closing(in: text[...], after: text.index(after: open))
        return close < text.endIndex ? text[start...close] : text[start...]
    }

    /// The text inside the bracket opened just before `start`.
    private static func bracketed(in text: Substring, from start: Substring.Index) -> Substring {
        text[start..<closing(in: text, after: start)]
    }

    /// Where the bracket or parenthesis opened just before `start` closes (the end of `text`
    /// when it does not).
    private static func closing(in text: Substring, after start: Substring.Index) -> Substring.Index {
        var depth = 1
        var index = start
        while index < text.endIndex {
            switch text[index] {
            case "[", "(": depth += 1
            case "]", ")":
                depth -= 1
                if depth == 0 { return index }
            default: break
            }
            index = text.index(after: index)
        }
        return text.endIndex
    }
}
