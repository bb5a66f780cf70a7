import CFuzzerDriver
import MockAPNsCore
import MockAPNsLegacy

/// The program's `main`: libFuzzer runs `fuzz` over generated inputs.
@_cdecl("FuzzLegacyFrameDecoder_main")
public func main(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    mockapns_run_fuzzer(argc, argv) { data, size in
        guard let data else { return 0 }
        return fuzz(data, size)
    }
}

/// The legacy gateway's frame decoder, fed the input once whole and once split into reads
/// whose sizes come from the input's first byte. Besides not crashing, the notifications
/// and frame errors must be the same however the stream is split (the decoder's promise;
/// only diagnoses, and an error's explanation read from them, may differ).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let splitSeed = Int(data[0])
    let bytes = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))

    var whole = LegacyFrameDecoder()
    let wholeEvents = whole.feed(bytes).compactMap(frameEvent)

    var split = LegacyFrameDecoder()
    var splitEvents: [LegacyDecoderEvent] = []
    var index = 0
    var step = 0
    while index < bytes.count {
        // Read sizes cycle through 1 ... 1 + splitSeed, so splits land everywhere.
        let length = min(bytes.count - index, 1 + (splitSeed + step * 7) % (splitSeed + 1))
        splitEvents += split.feed(Array(bytes[index..<index + length])).compactMap(frameEvent)
        index += length
        step += 1
    }
    precondition(wholeEvents == splitEvents, "events differ with the stream split into reads")
    precondition(whole.hasStopped == split.hasStopped, "stopping differs with the stream split into reads")
    return 0
}

/// A frame event as the split must not change it: a refused frame as the codec refused it,
/// before a diagnosis explained it (`LegacyFrameError.splitInvariant`); `nil` for a diagnosis.
private func frameEvent(_ event: LegacyDecoderEvent) -> LegacyDecoderEvent? {
    switch event {
    case .notification: event
    case .invalidFrame(let error): .invalidFrame(error.splitInvariant)
    case .diagnosis: nil
    }
}
