import CFuzzerDriver
import MockAPNsCore
import MockAPNsScenario

/// The program's `main`: libFuzzer runs `fuzz` over generated inputs.
@_cdecl("FuzzScenarioDecoder_main")
public func main(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    mockapns_run_fuzzer(argc, argv) { data, size in
        guard let data else { return 0 }
        return fuzz(data, size)
    }
}

/// Scenario files: any text is a scenario or a list of located mistakes; never a trap.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    do {
        let scenario = try Scenario.decode(jsonText: text)
        _ = scenario.rules.count
    } catch {
        precondition(!error.errors.isEmpty, "a refused scenario must say why")
        _ = error.description
    }
    return 0
}
