import Foundation
internal import Crypto

/// An App Store Connect API key: key ID, issuer ID and the `.p8` private key (EC P-256).
///
/// Read from `APP_STORE_CONNECT_KEY_ID`, `APP_STORE_CONNECT_ISSUER_ID` and
/// `APP_STORE_CONNECT_PRIVATE_KEY` (the PEM text) or `APP_STORE_CONNECT_PRIVATE_KEY_PATH`.
/// Without an issuer ID the key is taken as an individual key (`sub: user`).
package struct AppStoreConnectCredentials: Sendable {
    /// The variable holding the key ID.
    package static let keyIDVariable = "APP_STORE_CONNECT_KEY_ID"
    /// The variable holding the issuer ID (unset for an individual key).
    package static let issuerIDVariable = "APP_STORE_CONNECT_ISSUER_ID"
    /// The variable holding the `.p8` private key as PEM text.
    package static let privateKeyVariable = "APP_STORE_CONNECT_PRIVATE_KEY"
    /// The variable holding the path to the `.p8` file, used when the PEM text is not given.
    package static let privateKeyPathVariable = "APP_STORE_CONNECT_PRIVATE_KEY_PATH"
    /// The variable that overrides the API base.
    package static let apiURLVariable = "APP_STORE_CONNECT_API_URL"
    /// The API base used when the variable is unset.
    package static let defaultAPIURL = "https://api.appstoreconnect.apple.com"

    /// The key's ID, as App Store Connect shows it.
    package let keyID: String
    /// The issuer ID of a team key; nil for an individual key.
    package let issuerID: String?
    let privateKey: P256.Signing.PrivateKey
    /// The PEM text, kept only so it can be registered for redaction.
    let secretTexts: [String]

    /// Reads the credentials from the environment.
    /// - Throws: `ValidationFailure` listing every missing or unusable part at once.
    package static func fromEnvironment(_ variables: [String: String], workingDirectory: String) throws -> AppStoreConnectCredentials {
        var problems: [String] = []
        func value(_ name: String) -> String? {
            let text = variables[name]?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
            return text.isEmpty ? nil : text
        }
        let keyID = value(keyIDVariable)
        if keyID == nil { problems.append("\(keyIDVariable) is not set (the key ID shown beside the key in App Store Connect → Users and Access → Integrations)") }
        var pem = value(privateKeyVariable)
        if pem == nil, let path = value(privateKeyPathVariable) {
            let full = path.hasPrefix("/") ? path : workingDirectory + "/" + path
            if let data = FileManager.default.contents(atPath: full) {
                pem = String(decoding: data, as: UTF8.self)
            } else {
                problems.append("\(privateKeyPathVariable) names \(path), which cannot be read")
            }
        } else if pem == nil {
            problems.append("neither \(privateKeyVariable) (the .p8 file's text) nor \(privateKeyPathVariable) (its path) is set")
        }
        var key: P256.Signing.PrivateKey?
        if let pem {
            do {
                key = try parsePrivateKey(pem)
            } catch let error as StoreCredentialsError {
                problems.append(error.message)
            }
        }
        guard problems.isEmpty, let keyID, let key, let pem else {
            throw ValidationFailure(problems: problems, suggestion: "create an API key with the App Manager role and set the variables (in CI, as secrets)")
        }
        return AppStoreConnectCredentials(keyID: keyID, issuerID: value(issuerIDVariable), privateKey: key, secretTexts: [pem] + pemBodyLines(pem))
    }

    init(keyID: String, issuerID: String?, privateKey: P256.Signing.PrivateKey, secretTexts: [String] = []) {
        self.keyID = keyID
        self.issuerID = issuerID
        self.privateKey = privateKey
        self.secretTexts = secretTexts
    }

    /// Parses a `.p8` (PKCS#8) or SEC1 PEM holding an EC P-256 key.
    /// - Throws: `StoreCredentialsError` saying what the text is instead.
    static func parsePrivateKey(_ text: String) throws -> P256.Signing.PrivateKey {
        // CI secrets often arrive with literal "\n" instead of line breaks.
        let pem = text.contains("\\n") && !text.contains("\n") ? text.replacingOccurrences(of: "\\n", with: "\n") : text
        guard pem.contains("-----BEGIN") else {
            throw StoreCredentialsError("the App Store Connect private key is not PEM text (it should start with -----BEGIN PRIVATE KEY-----)")
        }
        if let key = try? P256.Signing.PrivateKey(pemRepresentation: pem) { return key }
        if (try? P384.Signing.PrivateKey(pemRepresentation: pem)) != nil || (try? P521.Signing.PrivateKey(pemRepresentation: pem)) != nil {
            throw StoreCredentialsError("the App Store Connect private key is an EC key on another curve; App Store Connect keys are EC P-256 (.p8)")
        }
        if pem.contains("RSA") || pem.count > 1000 {
            throw StoreCredentialsError("the App Store Connect private key is not an EC P-256 key (it looks like an RSA key); download the .p8 from App Store Connect")
        }
        throw StoreCredentialsError("the App Store Connect private key cannot be read as an EC P-256 key (.p8)")
    }

    static func pemBodyLines(_ pem: String) -> [String] {
        pem.split(whereSeparator: \.isNewline).map(String.init).filter { !$0.hasPrefix("-----") && $0.count >= 16 }
    }

    /// A token for the API: ES256, `kid`, `typ: JWT`; `iss` (or `sub: user`), `iat`, `exp` and
    /// `aud: appstoreconnect-v1`. `lifetime` is capped at Apple's 20 minutes.
    func token(now: Date, lifetime: TimeInterval = 19 * 60) throws -> String {
        struct Header: Encodable { var alg = "ES256"; var kid: String; var typ = "JWT" }
        struct Claims: Encodable {
            var iss: String?
            var sub: String?
            var iat: Int
            var exp: Int
            var aud = "appstoreconnect-v1"
        }
        let issued = Int(now.timeIntervalSince1970)
        let claims = Claims(iss: issuerID, sub: issuerID == nil ? "user" : nil, iat: issued, exp: issued + Int(min(lifetime, 20 * 60)))
        return try JSONWebToken.make(header: Header(kid: keyID), claims: claims) { input in
            try privateKey.signature(for: input).rawRepresentation
        }
    }
}

/// Hands out App Store Connect tokens, minting a new one when the last is 10 minutes old, so an
/// upload that takes longer than a token lives keeps working.
final class AppStoreConnectTokenSource: @unchecked Sendable {
    // @unchecked: the mutable cache is only touched under `lock`.
    private let credentials: AppStoreConnectCredentials
    private let now: @Sendable () -> Date
    private let lock = NSLock()
    private var cached: (token: String, minted: Date)?
    /// `base` and every token minted so far: made anew when a token is minted, not per request.
    private var redacting: SecretRedactor

    init(credentials: AppStoreConnectCredentials, now: @escaping @Sendable () -> Date, redactor base: SecretRedactor = SecretRedactor()) {
        self.credentials = credentials
        self.now = now
        redacting = base
    }

    func token() throws -> String {
        try lock.withLock {
            let current = now()
            if let cached, current.timeIntervalSince(cached.minted) < 600, current >= cached.minted { return cached.token }
            let token = try credentials.token(now: current)
            cached = (token, current)
            redacting.add([token])
            return token
        }
    }

    /// The redactor given at the start, redacting every token minted so far as well.
    var redactor: SecretRedactor { lock.withLock { redacting } }
}
