import MockAPNsCore
extension JournalJSON {
    /// A delivery event's members: `"delivery":{"step":"stored","cause":"deviceOffline",...}`,
    /// with the console's words for the step (`"console"`, written for people; reading
    /// derives it again).
    static func write(_ record: DeliveryRecord, into writer: inout JSONWriter) {
        writer.beginObject("delivery")
        writer.string("step", record.step.rawValue)
        writer.string("cause", record.cause?.rawValue)
        writer.string("console", record.consoleText)
        writer.string("deviceToken", record.deviceToken)
        writer.integer("notification", record.notificationSequence)
        writer.integer("at", record.atMilliseconds)
        writer.integer("until", record.untilMilliseconds)
        writer.integer("replacedBy", record.replacedBy)
        writer.string("rule", record.rule)
        writer.endObject()
    }

    static func readDelivery(_ object: inout JSONObjectReader) throws(JSONFileError) -> DeliveryRecord {
        let record = DeliveryRecord(
            step: try need(object.oneOf("step", DeliveryStep.self), object, "step", "a delivery step"),
            cause: try object.oneOf("cause", DeliveryCause.self),
            deviceToken: try need(object.string("deviceToken"), object, "deviceToken", "a device token"),
            notificationSequence: try object.integer("notification", in: 0...Int64.max).map { UInt64($0) },
            atMilliseconds: try need(object.integer("at", in: Int64.min...Int64.max), object, "at", "milliseconds since 1970"),
            untilMilliseconds: try object.integer("until", in: Int64.min...Int64.max),
            replacedBy: try object.integer("replacedBy", in: 0...Int64.max).map { UInt64($0) },
            rule: try object.string("rule")
        )
        _ = try object.string("console")  // follows from the step and cause
        try object.finish()
        return record
    }
}

extension DeliveryRecord {
    /// The step in one line, for the `journal` command's timeline.
    package var summary: String {
        var line = "delivery \(step.rawValue) (\(consoleText)) token=\(deviceToken)"
        if let notificationSequence { line += " notification #\(notificationSequence)" }
        if let until = untilMilliseconds { line += " until=\(until)" }
        if let replacedBy { line += " replaced by #\(replacedBy)" }
        if let rule { line += " (rule \"\(rule)\")" }
        return line
    }
}
