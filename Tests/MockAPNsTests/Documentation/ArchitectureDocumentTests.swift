import Foundation
import XCTest

/// `docs/architecture.md` names types, members, files and tests in code spans; each must exist,
/// so the document cannot drift from the code a newcomer reads it for.
final class ArchitectureDocumentTests: XCTestCase {
    /// Names the document uses that belong to other packages (or to C), not to this one.
    private static let foreign: Set<String> = [
        "Application", "RouteCollection", "EmbeddedChannel", "Service", "ServiceGroup", "Mutex", "BIO", "SSL",
    ]

    func testEveryNameTheArchitectureDocumentUsesExists() throws {
        let root = Fixtures.root
        let document = try String(contentsOfFile: root + "/docs/architecture.md", encoding: .utf8)
        let paths = Self.relativePaths(under: ["Sources", "Tests", "scenarios", "Fuzz", "docs"].map { root + "/" + $0 } + [root])
        var types = Set<String>()
        var members: [String: Set<String>] = [:]
        for path in paths where path.hasSuffix(".swift") {
            let code = try String(contentsOfFile: root + "/" + path, encoding: .utf8)
            Self.collectDeclarations(in: code, types: &types, members: &members)
        }
        // Targets are names too.
        types.formUnion(paths.filter { !$0.contains(".") }.compactMap { $0.split(separator: "/").last.map(String.init) })

        var missing: [String] = []
        for span in Self.codeSpans(document) {
            switch Self.kind(of: span) {
            case .type(let name):
                if !Self.foreign.contains(name), !types.contains(name) { missing.append(span) }
            case .member(let type, let member):
                if !Self.foreign.contains(type), members[type]?.contains(member) != true { missing.append(span) }
            case .path(let path):
                let trimmed = path.hasSuffix("/") ? String(path.dropLast()) : path
                if !paths.contains(where: { $0 == trimmed || $0.hasSuffix("/" + trimmed) }) { missing.append(span) }
            case .other:
                continue
            }
        }
        XCTAssertEqual(missing, [], "docs/architecture.md names what the code does not have")
    }

    private enum Kind: Equatable {
        case type(String)
        case member(type: String, member: String)
        case path(String)
        case other
    }

    private static func codeSpans(_ text: String) -> [String] {
        var spans: [String] = []
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "`") {
            let after = rest.index(after: open)
            guard let close = rest[after...].firstIndex(of: "`") else { break }
            spans.append(String(rest[after..<close]))
            rest = rest[rest.index(after: close)...]
        }
        return Array(Set(spans)).sorted()
    }

    private static func kind(of span: String) -> Kind {
        // Files, unless they are patterns (`ControlAPI+<Resource>.swift`).
        if !span.contains("<"), !span.contains(" "), span.hasSuffix(".swift") || span.hasSuffix(".json") {
            return .path(span)
        }
        if span.wholeMatch(of: #/[A-Z][A-Za-z0-9]*/#) != nil { return .type(span) }
        if let match = span.wholeMatch(of: #/([A-Z][A-Za-z0-9]*)\.([a-z][A-Za-z0-9]*)(\(.*\))?/#) {
            return .member(type: String(match.output.1), member: String(match.output.2))
        }
        // Folders, unless they are patterns or URLs.
        if !span.contains("<"), !span.contains(" "), span.hasSuffix("/"), span.first?.isUppercase == true {
            return .path(span)
        }
        return .other
    }

    /// The names `code` declares: types (and extended types), and the members declared in
    /// each type's body or its extensions'. Braces are counted to know which body a member
    /// is in (strings holding braces are rare enough in this code not to matter).
    private static func collectDeclarations(in code: String, types: inout Set<String>, members: inout [String: Set<String>]) {
        var tokens: [Substring] = []
        var start: String.Index?
        for index in code.indices {
            let character = code[index]
            if character.isLetter || character.isNumber || character == "_" {
                if start == nil { start = index }
                continue
            }
            if let begun = start { tokens.append(code[begun..<index]) }
            start = nil
            if character == "{" || character == "}" { tokens.append(code[index...index]) }
        }
        var scopes: [String?] = []
        var pending: String?
        for (index, token) in tokens.enumerated() {
            switch token {
            case "{":
                scopes.append(pending)
                pending = nil
            case "}":
                _ = scopes.popLast()
            case "struct", "enum", "class", "protocol", "actor", "extension":
                if index + 1 < tokens.count {
                    types.insert(String(tokens[index + 1]))
                    pending = String(tokens[index + 1])
                }
            case "typealias":
                if index + 1 < tokens.count { types.insert(String(tokens[index + 1])) }
            case "func", "var", "let", "case":
                if index + 1 < tokens.count, let owner = scopes.last(where: { $0 != nil }) ?? nil {
                    members[owner, default: []].insert(String(tokens[index + 1]))
                }
            default:
                continue
            }
        }
    }

    /// Every file and folder below `directories`, relative to the first one's parent (the
    /// repository), skipping build folders.
    private static func relativePaths(under directories: [String]) -> [String] {
        guard let root = directories.last else { return [] }
        var paths: [String] = []
        for directory in directories.dropLast() {
            let prefix = String(directory.dropFirst(root.count + 1))
            guard let enumerator = FileManager.default.enumerator(atPath: directory) else { continue }
            for case let path as String in enumerator {
                paths.append(prefix + "/" + path)
            }
        }
        for top in (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? [] where !top.hasPrefix(".") {
            paths.append(top)
        }
        return paths
    }
}
