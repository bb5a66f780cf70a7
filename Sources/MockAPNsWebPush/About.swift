// MockAPNsWebPush: Safari's web push endpoint (web.push.apple.com) as pure logic, no I/O.
//
// - Subscriptions as a browser makes them for `pushManager.subscribe` (WebPushSubscription,
//   WebPushSubscriptions): the endpoint token, the user agent's ECDH key pair and auth secret.
// - The body's encryption: RFC 8291 keys and RFC 8188 aes128gcm records, both ways
//   (WebPushSubscription.decrypt, WebPushEncryptor for tests and Swift senders).
// - VAPID (RFC 8292): the Authorization header taken apart and checked the way Apple documents
//   its one refusal, 403 BadJwtToken (VAPIDInspection, VAPIDSubjectRules, VAPIDSigner).
// - Declarative Web Push (Safari 18.4) messages read out of the decrypted body.
// - The decision (WebPushDecider): which answer a push request gets, and the diagnoses that
//   say why, in the order the decider's table documents.
