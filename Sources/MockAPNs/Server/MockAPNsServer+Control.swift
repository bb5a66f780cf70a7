import MockAPNsBroadcast
import MockAPNsControl
import MockAPNsCore
import MockAPNsDelivery

/// The control API works on the server through `ControlledServer`; most of what it asks is
/// the server's own API, the rest is read from the configuration here.
extension MockAPNsServer: ControlledServer {
    package var broadcastOptions: BroadcastOptions { configuration.broadcast.options }
    package var primaryEnvironment: APNsEnvironment { configuration.environment.primary }
    package var controlAccessPolicy: ControlAccessPolicy { configuration.control.accessPolicy(token: controlToken) }
    package var boundPortsJSON: String? { ports?.json }
    package var credentialsDirectory: String { DevelopmentCredentials.absolute(configuration.certificateDirectory) }
}
