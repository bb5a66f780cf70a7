import Foundation
import XCTest

/// Each capability is one module a newcomer can name and read: no target's Swift sources grow
/// past about 6,000 lines (what the architecture document's module table can still describe
/// in a row). A target that passes it is split, not the ceiling raised.
final class ModuleSizeTests: XCTestCase {
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
}
