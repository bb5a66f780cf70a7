// The RFC tables this module's API speaks in (TLS alerts, HTTP/2 error codes) live in one
// module of their own, shared with the other modules; importing this module imports them.
@_exported import MockAPNsWire
