import Foundation
internal import Crypto
internal import _CryptoExtras

/// A Google service account key (the JSON file from Google Cloud), able to sign the RS256 JWT
/// that Google exchanges for an access token.
///
/// Read from `GOOGLE_PLAY_SERVICE_ACCOUNT_JSON`: a path to the file, or the JSON itself.
package struct GooglePlayServiceAccount: Sendable {
    /// The variable holding the key: a path to the JSON file, or the JSON itself.
    package static let variable = "GOOGLE_PLAY_SERVICE_ACCOUNT_JSON"
    /// The variable that overrides the API base.
    package static let apiURLVariable = "GOOGLE_PLAY_API_URL"
    /// The API base used when the variable is unset.
    package static let defaultAPIURL = "https://androidpublisher.googleapis.com"
    /// The OAuth scope asked for.
    package static let scope = "https://www.googleapis.com/auth/androidpublisher"

    /// The service account's email (`client_email`), which Play Console grants access to.
    package let clientEmail: String
    /// Where the signed assertion is exchanged for an access token (`token_uri`).
    package let tokenURI: String
    let privateKeyID: String?
    let privateKey: _RSA.Signing.PrivateKey
    /// The JSON text and the key's PEM lines, for redaction.
    let secretTexts: [String]

    /// Reads the service account from the environment.
    /// - Throws: `StoreCredentialsError` naming what is missing or malformed (never the key).
    package static func fromEnvironment(_ variables: [String: String], workingDirectory: String) throws -> GooglePlayServiceAccount {
        let value = variables[variable]?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        guard !value.isEmpty else {
            throw StoreCredentialsError("\(variable) is not set",
                                        suggestion: "set it to the service account's JSON key (or its path); grant the account access in Play Console → Users and permissions")
        }
        let text: String
        if value.hasPrefix("{") {
            text = value
        } else {
            let path = value.hasPrefix("/") ? value : workingDirectory + "/" + value
            guard let data = FileManager.default.contents(atPath: path) else {
                // A value that is not a path may be the key itself, pasted in another form: not shown.
                let showable = !value.contains(where: \.isNewline) && !value.contains("PRIVATE KEY") && value.count <= 1024
                throw StoreCredentialsError(showable ? "\(variable) names \(value), which cannot be read (it is neither JSON nor a readable file)"
                                                     : "\(variable) is neither JSON nor the path of a readable file (its value is not shown: it may be a secret)")
            }
            text = String(decoding: data, as: UTF8.self)
        }
        return try parse(text)
    }

    /// Parses a service-account JSON key.
    /// - Throws: `StoreCredentialsError` for malformed JSON, a wrong type, missing fields or an unusable key.
    static func parse(_ text: String) throws -> GooglePlayServiceAccount {
        struct KeyFile: Decodable {
            var type: String?
            var client_email: String?
            var private_key: String?
            var private_key_id: String?
            var token_uri: String?
        }
        let file: KeyFile
        do {
            file = try JSONDecoder().decode(KeyFile.self, from: Data(text.utf8))
        } catch {
            throw StoreCredentialsError("the Google service account key is not valid JSON",
                                        suggestion: "download a new JSON key from Google Cloud → IAM → Service accounts → Keys")
        }
        var problems: [String] = []
        if let type = file.type, type != "service_account" { problems.append("its type is \"\(type)\", not \"service_account\"") }
        if (file.client_email ?? "").isEmpty { problems.append("client_email is missing") }
        if (file.private_key ?? "").isEmpty { problems.append("private_key is missing") }
        let tokenURI = file.token_uri ?? "https://oauth2.googleapis.com/token"
        if !(tokenURI.hasPrefix("https://") || tokenURI.hasPrefix("http://")) { problems.append("token_uri is not a URL") }
        var key: _RSA.Signing.PrivateKey?
        if let pem = file.private_key, !pem.isEmpty {
            key = try? _RSA.Signing.PrivateKey(pemRepresentation: pem)
            if key == nil { problems.append("private_key is not an RSA private key in PEM form") }
        }
        guard problems.isEmpty, let key, let email = file.client_email else {
            throw StoreCredentialsError("the Google service account key is unusable: " + problems.joined(separator: "; "),
                                        suggestion: "download a new JSON key from Google Cloud → IAM → Service accounts → Keys")
        }
        let pemLines = (file.private_key ?? "").split(whereSeparator: \.isNewline).map(String.init)
            .filter { !$0.hasPrefix("-----") && $0.count >= 16 }
        return GooglePlayServiceAccount(clientEmail: email, tokenURI: tokenURI, privateKeyID: file.private_key_id,
                                        privateKey: key, secretTexts: [text, file.private_key ?? ""] + pemLines)
    }

    /// The signed assertion for the token exchange: RS256; `iss` the account, `scope`
    /// androidpublisher (or `scope`), `aud` the token URI, an hour's lifetime.
    func assertion(now: Date, scope: String = Self.scope) throws -> String {
        struct Header: Encodable { var alg = "RS256"; var typ = "JWT"; var kid: String? }
        struct Claims: Encodable { var iss: String; var scope: String; var aud: String; var iat: Int; var exp: Int }
        let issued = Int(now.timeIntervalSince1970)
        return try JSONWebToken.make(
            header: Header(kid: privateKeyID),
            claims: Claims(iss: clientEmail, scope: scope, aud: tokenURI, iat: issued, exp: issued + 3600)
        ) { input in
            try privateKey.signature(for: Crypto.SHA256.hash(data: input), padding: .insecurePKCS1v1_5).rawRepresentation
        }
    }
}
