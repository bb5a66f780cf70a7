import CFuzzerDriver
import MockAPNsCore

/// The program's `main`: libFuzzer runs `fuzz` over generated inputs.
@_cdecl("FuzzJSONParser_main")
public func main(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    mockapns_run_fuzzer(argc, argv) { data, size in
        guard let data else { return 0 }
        return fuzz(data, size)
    }
}

/// The JSON parser behind scenario files, configuration files and control API bodies:
/// any text either parses or throws a located error; it never traps.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    do {
        _ = try JSONParser.parse(text)
    } catch {
        _ = error.description
    }
    return 0
}
