-- Wireshark dissectors for the legacy APNs binary protocol, as MockAPNs' journal capture
-- carries it (`mockapns journal --pcap`): the gateway's notification commands 0, 1 and 2
-- with their items, its error-response packets (command 8), and the feedback service's
-- tuples. The capture holds plaintext, so no TLS keys are needed.
--
--   tshark -X lua_script:tools/wireshark/mockapns-legacy.lua -r capture.pcapng \
--       -d tcp.port==2195,mockapns_gateway -d tcp.port==2196,mockapns_feedback
--
-- Both register on their usual ports (2195, 2196; Edit > Preferences > Protocols to change
-- them) and for Decode As, so `-d` puts them on any port: the capture's comments name the
-- ports of its connections.

local gateway = Proto("mockapns_gateway", "APNs legacy binary gateway")
local feedback = Proto("mockapns_feedback", "APNs legacy feedback service")

local command_names = {
    [0] = "Simple notification",
    [1] = "Enhanced notification",
    [2] = "Notification frame",
    [8] = "Error response",
}
local item_names = {
    [1] = "Device token",
    [2] = "Payload",
    [3] = "Notification identifier",
    [4] = "Expiration date",
    [5] = "Priority",
}
local status_names = {
    [0] = "No errors encountered",
    [1] = "Processing error",
    [2] = "Missing device token",
    [3] = "Missing topic",
    [4] = "Missing payload",
    [5] = "Invalid token size",
    [6] = "Invalid topic size",
    [7] = "Invalid payload size",
    [8] = "Invalid token",
    [10] = "Shutdown",
    [128] = "Protocol error",
    [255] = "None (unknown)",
}

local g = {
    command = ProtoField.uint8("mockapns_gateway.command", "Command", base.DEC, command_names),
    frame_length = ProtoField.uint32("mockapns_gateway.frame_length", "Frame length", base.DEC),
    item = ProtoField.uint8("mockapns_gateway.item", "Item", base.DEC, item_names),
    item_length = ProtoField.uint16("mockapns_gateway.item_length", "Item length", base.DEC),
    token_length = ProtoField.uint16("mockapns_gateway.token_length", "Token length", base.DEC),
    token = ProtoField.bytes("mockapns_gateway.token", "Device token", base.NONE),
    payload_length = ProtoField.uint16("mockapns_gateway.payload_length", "Payload length", base.DEC),
    payload = ProtoField.string("mockapns_gateway.payload", "Payload", base.UNICODE),
    identifier = ProtoField.uint32("mockapns_gateway.identifier", "Identifier", base.DEC),
    expiry = ProtoField.uint32("mockapns_gateway.expiry", "Expiry (seconds since 1970)", base.DEC),
    priority = ProtoField.uint8("mockapns_gateway.priority", "Priority", base.DEC),
    status = ProtoField.uint8("mockapns_gateway.status", "Status", base.DEC, status_names),
    unknown = ProtoField.bytes("mockapns_gateway.unknown", "Bytes of an unknown command", base.NONE),
}
gateway.fields = { g.command, g.frame_length, g.item, g.item_length, g.token_length, g.token, g.payload_length,
    g.payload, g.identifier, g.expiry, g.priority, g.status, g.unknown }

local f = {
    time = ProtoField.uint32("mockapns_feedback.time", "Time (seconds since 1970)", base.DEC),
    token_length = ProtoField.uint16("mockapns_feedback.token_length", "Token length", base.DEC),
    token = ProtoField.bytes("mockapns_feedback.token", "Device token", base.NONE),
}
feedback.fields = { f.time, f.token_length, f.token }

-- The length of the gateway PDU at `offset`: a number, or nil and how many more bytes are
-- needed to tell (DESEGMENT_ONE_MORE_SEGMENT when unknown).
local function gateway_pdu_length(tvb, offset)
    local available = tvb:len() - offset
    local command = tvb(offset, 1):uint()
    local function need(count) return nil, count - available end
    if command == 8 then
        if available < 6 then return need(6) end
        return 6
    elseif command == 2 then
        if available < 5 then return need(5) end
        return 5 + tvb(offset + 1, 4):uint()
    elseif command == 0 or command == 1 then
        local at = (command == 0) and 1 or 9
        if available < at + 2 then return need(at + 2) end
        local token_length = tvb(offset + at, 2):uint()
        local payload_at = at + 2 + token_length
        if available < payload_at + 2 then return need(payload_at + 2) end
        return payload_at + 2 + tvb(offset + payload_at, 2):uint()
    end
    return available  -- an unknown command: the rest cannot be framed
end

local function token_text(range)
    return range:bytes():tohex():lower()
end

local function dissect_gateway_pdu(tvb, pinfo, tree, offset, length)
    local command = tvb(offset, 1):uint()
    local subtree = tree:add(gateway, tvb(offset, length))
    subtree:add(g.command, tvb(offset, 1))
    local summary = command_names[command] or ("Unknown command " .. command)
    if command == 8 then
        local status = tvb(offset + 1, 1):uint()
        subtree:add(g.status, tvb(offset + 1, 1))
        subtree:add(g.identifier, tvb(offset + 2, 4))
        summary = string.format("Error response status %d (%s) id=%d", status, status_names[status] or "?", tvb(offset + 2, 4):uint())
    elseif command == 2 then
        subtree:add(g.frame_length, tvb(offset + 1, 4))
        local at = offset + 5
        local stop = offset + length
        local identifier, token
        while at + 3 <= stop do
            local item = tvb(at, 1):uint()
            local item_length = tvb(at + 1, 2):uint()
            if at + 3 + item_length > stop then break end
            local value = tvb(at + 3, item_length)
            local item_tree = subtree:add(g.item, tvb(at, 1))
            item_tree:add(g.item_length, tvb(at + 1, 2))
            if item == 1 then
                item_tree:add(g.token, value)
                token = token_text(value)
            elseif item == 2 then
                item_tree:add(g.payload, value)
            elseif item == 3 and item_length == 4 then
                item_tree:add(g.identifier, value)
                identifier = value:uint()
            elseif item == 4 and item_length == 4 then
                item_tree:add(g.expiry, value)
            elseif item == 5 and item_length == 1 then
                item_tree:add(g.priority, value)
            end
            at = at + 3 + item_length
        end
        summary = summary .. (identifier and (" id=" .. identifier) or "") .. (token and (" token=" .. token) or "")
    elseif command == 0 or command == 1 then
        local at = offset + 1
        if command == 1 then
            subtree:add(g.identifier, tvb(at, 4))
            subtree:add(g.expiry, tvb(at + 4, 4))
            summary = summary .. " id=" .. tvb(at, 4):uint()
            at = at + 8
        end
        local token_length = tvb(at, 2):uint()
        subtree:add(g.token_length, tvb(at, 2))
        if token_length > 0 then
            subtree:add(g.token, tvb(at + 2, token_length))
            summary = summary .. " token=" .. token_text(tvb(at + 2, token_length))
        end
        at = at + 2 + token_length
        local payload_length = tvb(at, 2):uint()
        subtree:add(g.payload_length, tvb(at, 2))
        if payload_length > 0 then subtree:add(g.payload, tvb(at + 2, payload_length)) end
    else
        if length > 1 then subtree:add(g.unknown, tvb(offset + 1, length - 1)) end
    end
    subtree:append_text(": " .. summary)
    return summary
end

function gateway.dissector(tvb, pinfo, tree)
    local offset = 0
    local summaries = {}
    while offset < tvb:len() do
        local length, more = gateway_pdu_length(tvb, offset)
        if length == nil or offset + length > tvb:len() then
            pinfo.desegment_offset = offset
            pinfo.desegment_len = more or (offset + length - tvb:len())
            break
        end
        table.insert(summaries, dissect_gateway_pdu(tvb, pinfo, tree, offset, length))
        offset = offset + length
    end
    if #summaries > 0 then
        pinfo.cols.protocol = "APNs gateway"
        pinfo.cols.info = table.concat(summaries, "; ")
    end
    return offset
end

function feedback.dissector(tvb, pinfo, tree)
    local offset = 0
    local count = 0
    while offset < tvb:len() do
        local available = tvb:len() - offset
        if available < 6 then
            pinfo.desegment_offset = offset
            pinfo.desegment_len = 6 - available
            break
        end
        local token_length = tvb(offset + 4, 2):uint()
        if available < 6 + token_length then
            pinfo.desegment_offset = offset
            pinfo.desegment_len = 6 + token_length - available
            break
        end
        local subtree = tree:add(feedback, tvb(offset, 6 + token_length))
        subtree:add(f.time, tvb(offset, 4))
        subtree:add(f.token_length, tvb(offset + 4, 2))
        subtree:add(f.token, tvb(offset + 6, token_length))
        subtree:append_text(": token " .. token_text(tvb(offset + 6, token_length)) .. " at " ..
            os.date("!%Y-%m-%d %H:%M:%S UTC", tvb(offset, 4):uint()))
        offset = offset + 6 + token_length
        count = count + 1
    end
    if count > 0 then
        pinfo.cols.protocol = "APNs feedback"
        pinfo.cols.info = count .. " feedback tuple(s)"
    end
    return offset
end

gateway.prefs.port = Pref.uint("Port", 2195, "The gateway's TCP port")
feedback.prefs.port = Pref.uint("Port", 2196, "The feedback service's TCP port")

local tcp_port = DissectorTable.get("tcp.port")
local registered = { [gateway] = 0, [feedback] = 0 }

local function register(proto)
    if registered[proto] ~= 0 then tcp_port:remove(registered[proto], proto) end
    registered[proto] = proto.prefs.port
    tcp_port:add(proto.prefs.port, proto)
end

gateway.prefs_changed = function() register(gateway) end
feedback.prefs_changed = function() register(feedback) end
register(gateway)
register(feedback)
