/// The OpenAPI 3 description of the control API, served at `GET /openapi.json`. Its one
/// source is control-api.openapi.json beside this file, compiled into the binary
/// (`.embedInCode` in Package.swift), so a copied `mockapns` binary still serves it.
package enum ControlOpenAPI {
    package static let document = String(decoding: PackageResources.control_api_openapi_json, as: UTF8.self)
}
