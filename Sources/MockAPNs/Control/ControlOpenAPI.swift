/// The OpenAPI 3 description of the control API, served at `GET /openapi.json`. The same
/// text is committed as docs/control-api.openapi.json (a test keeps the two equal).
enum ControlOpenAPI {
    static let document = """
    {}
    """
}
