import Foundation

/// Builds compact JSON Web Tokens (RFC 7519): `base64url(header).base64url(claims).base64url(signature)`.
///
/// Signing is passed in, so the ES256 (App Store Connect) and RS256 (Google) keys stay with
/// their own credentials types.
enum JSONWebToken {
    /// A signed token for `header` and `claims`; `sign` gets the bytes of `header.claims`.
    static func make<Header: Encodable, Claims: Encodable>(
        header: Header, claims: Claims, sign: (Data) throws -> Data
    ) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let signingInput = base64URL(try encoder.encode(header)) + "." + base64URL(try encoder.encode(claims))
        return signingInput + "." + base64URL(try sign(Data(signingInput.utf8)))
    }

    /// Base64 with the URL alphabet and no padding.
    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Decodes base64url with or without padding; nil when it is not.
    static func decodeBase64URL(_ text: String) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)
    }
}
