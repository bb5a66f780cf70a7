import Foundation
import Hummingbird
import MockAPNsCore

/// The server clock: read it, pin it, move it, let it follow real time again.
extension ControlAPI {
    /// `/v1/clock`: `GET`, `PUT`, `POST advance`, `POST resume`.
    package var clockRoutes: RouteCollection<ControlRequestContext> {
        let routes = RouteCollection(context: ControlRequestContext.self)
        routes.get(use: handle(clock))
        routes.put(use: handle(setClock))
        routes.post("advance", use: handle(advanceClock))
        routes.post("resume", use: handle(resumeClock))
        return routes
    }

    fileprivate func clock(_ request: Request, _ context: ControlRequestContext) async throws(ControlAPIError) -> Response {
        let clock = server.clock
        let now = clock.millisecondsSince1970
        return ControlResponse.object { json in
            json.integer("millisecondsSince1970", now)
            json.string("time", Date(timeIntervalSince1970: Double(now) / 1000).ISO8601Format())
            json.bool("fixed", clock.isFixed)
            json.integer("offsetMilliseconds", clock.offsetFromRealTimeMilliseconds)
        }
    }

    /// `{"millisecondsSince1970": N}` or `{"time": "2026-01-01T00:00:00Z"}`: pins the clock.
    fileprivate func setClock(_ request: Request, _ context: ControlRequestContext) async throws(ControlAPIError) -> Response {
        try serverWide(context, "The clock")
        var body = try await Self.bodyObject(request, allowEmpty: false)
        let milliseconds = try Self.readInteger(&body, "millisecondsSince1970", in: ServerClock.range)
        let time = try Self.readString(&body, "time")
        try Self.finish(body, allowed: ["millisecondsSince1970", "time"])
        switch (milliseconds, time) {
        case (let value?, nil):
            server.clock.set(millisecondsSince1970: value)
        case (nil, let text?):
            guard let value = ClockSetting.parseISO8601(text), ServerClock.range.contains(value) else {
                throw ControlAPIError(
                    "time must be an ISO 8601 UTC time from 1970-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z like 2026-01-01T00:00:00Z, not \"\(text.prefix(100))\"",
                    parameter: "$.time")
            }
            server.clock.set(millisecondsSince1970: value)
        default:
            throw ControlAPIError("give exactly one of millisecondsSince1970 or time", parameter: "$")
        }
        // Storage expiries and batch releases the move passed happen now, not at the next look.
        await server.catchUpDelivery()
        return try await clock(request, context)
    }

    fileprivate func advanceClock(_ request: Request, _ context: ControlRequestContext) async throws(ControlAPIError) -> Response {
        try serverWide(context, "The clock")
        var body = try await Self.bodyObject(request, allowEmpty: false)
        guard let milliseconds = try Self.readInteger(&body, "milliseconds", in: Self.clockAdvanceRange) else {
            throw ControlAPIError("milliseconds is required", parameter: "$.milliseconds")
        }
        try Self.finish(body, allowed: ["milliseconds"])
        // The clock stops at the ends of its range (1970 and 9999) rather than wrap or trap.
        server.clock.advance(milliseconds: milliseconds)
        await server.catchUpDelivery()
        return try await clock(request, context)
    }

    fileprivate func resumeClock(_ request: Request, _ context: ControlRequestContext) async throws(ControlAPIError) -> Response {
        try serverWide(context, "The clock")
        _ = try ControlQuery(request, allowed: [])
        try await Self.noFields(request)
        server.clock.resume()
        await server.catchUpDelivery()
        return try await clock(request, context)
    }
}
