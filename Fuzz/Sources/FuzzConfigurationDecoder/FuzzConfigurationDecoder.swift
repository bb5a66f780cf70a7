import CFuzzerDriver
import MockAPNs
import MockAPNsCore

/// The program's `main`: libFuzzer runs `fuzz` over generated inputs.
@_cdecl("FuzzConfigurationDecoder_main")
public func main(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    mockapns_run_fuzzer(argc, argv) { data, size in
        guard let data else { return 0 }
        return fuzz(data, size)
    }
}

/// Configuration files: any text is a configuration or a located error; never a trap.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    do {
        _ = try MockAPNsConfiguration.parse(json: text)
    } catch {
        _ = error.description
    }
    return 0
}
