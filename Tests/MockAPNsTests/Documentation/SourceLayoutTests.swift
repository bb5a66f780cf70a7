import Foundation
import XCTest

/// Each capability is one module a newcomer can name and read: no target's Swift sources grow
/// past about 6,000 lines (what the architecture document's module table can still describe
/// in a row). A target that passes it is split, not the ceiling raised.
final class SourceLayoutTests: XCTestCase {
    static let ceiling = 6_000

    func testNoTargetIsLargerThanTheCeiling() throws {
        let sources = Fixtures.root + "/Sources"
        let targets = try FileManager.default.contentsOfDirectory(atPath: sources).sorted()
        var sizes: [String: Int] = [:]
        for target in targets {
            guard let files = FileManager.default.enumerator(atPath: sources + "/" + target) else { continue }
            for case let file as String in files where file.hasSuffix(".swift") {
                let text = try String(contentsOfFile: sources + "/" + target + "/" + file, encoding: .utf8)
                sizes[target, default: 0] += text.split(separator: "\n", omittingEmptySubsequences: false).count
            }
        }
        XCTAssertGreaterThan(sizes["MockAPNs"] ?? 0, 1_000, "the server's sources were not found: \(sizes)")
        let over = sizes.filter { $0.value > Self.ceiling }.sorted { $0.key < $1.key }
        XCTAssertEqual(over.map(\.key), [], "targets over \(Self.ceiling) lines: \(over)")
    }

    /// A folder says what lives in it: its first file (by name) opens with a comment, before
    /// or after its imports, rather than straight into code.
    func testEveryFoldersFirstFileSaysWhatLivesThere() throws {
        let sources = Fixtures.root + "/Sources"
        guard let entries = FileManager.default.enumerator(atPath: sources) else { return XCTFail("no Sources") }
        var folders: [String: [String]] = [:]
        for case let path as String in entries where path.hasSuffix(".swift") {
            let folder = (path as NSString).deletingLastPathComponent
            folders[folder, default: []].append((path as NSString).lastPathComponent)
        }
        XCTAssertGreaterThan(folders.count, 20, "the source folders were not found")
        var silent: [String] = []
        for (folder, files) in folders {
            guard let first = files.min() else { continue }
            let text = try String(contentsOfFile: sources + "/" + folder + "/" + first, encoding: .utf8)
            let opening = text.split(separator: "\n").first { line in
                let line = line.trimmingCharacters(in: .whitespaces)
                return !line.isEmpty && !line.hasPrefix("import ") && !line.hasPrefix("@_exported import ")
                    && !line.hasPrefix("internal import ") && !line.hasPrefix("#")
            }
            if opening.map({ !$0.hasPrefix("//") }) ?? true { silent.append(folder + "/" + first) }
        }
        XCTAssertEqual(silent.sorted(), [], "these folders' first files open with code, not with what the folder holds")
    }
}
