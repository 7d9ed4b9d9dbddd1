import Foundation
internal import Crypto

/// AWS Signature Version 4 (the `AWS4-HMAC-SHA256` Authorization header), as AWS's "Create a
/// signed AWS API request" describes it: canonical request, string to sign, a key derived from the
/// secret by date, region and service, and HMAC-SHA256 over the string.
///
/// Written here rather than taken from a package: the only maintained Swift implementation
/// (Soto's `SotoSignerV4`) brings Soto's core with it, for some 120 lines over swift-crypto.
package struct SignatureV4: Sendable {
    /// AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and, for temporary credentials, AWS_SESSION_TOKEN.
    package struct Credentials: Sendable {
        package var accessKeyID: String
        package var secretAccessKey: String
        package var sessionToken: String?

        package init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil) {
            self.accessKeyID = accessKeyID
            self.secretAccessKey = secretAccessKey
            self.sessionToken = sessionToken
        }
    }

    package var credentials: Credentials
    package var region: String
    package var service: String

    package init(credentials: Credentials, region: String, service: String = "s3") {
        self.credentials = credentials
        self.region = region
        self.service = service
    }

    /// The headers to add to a request: `x-amz-date`, `x-amz-content-sha256`, the session token
    /// and `Authorization`, signing `headers` (host included) and `payloadHash` (hex SHA-256 of
    /// the body, or `UNSIGNED-PAYLOAD`).
    package func sign(method: String, url: URLComponents, headers: [(name: String, value: String)], payloadHash: String, date: Date)
        -> [(name: String, value: String)] {
        let (amzDate, day) = Self.timestamps(date)
        var added: [(name: String, value: String)] = [("x-amz-date", amzDate), ("x-amz-content-sha256", payloadHash)]
        if let token = credentials.sessionToken { added.append(("x-amz-security-token", token)) }
        var host = url.host ?? ""
        if let port = url.port { host += ":\(port)" }
        var signed: [String: String] = ["host": host]
        for header in headers + added {
            let name = header.name.lowercased()
            let value = header.value.split(whereSeparator: { $0 == " " || $0 == "\t" }).joined(separator: " ")
            signed[name] = signed[name].map { $0 + "," + value } ?? value
        }
        let names = signed.keys.sorted()
        let canonicalHeaders = names.map { "\($0):\(signed[$0] ?? "")\n" }.joined()
        let signedHeaders = names.joined(separator: ";")
        let canonicalRequest = [
            method, Self.canonicalPath(url.percentEncodedPath), Self.canonicalQuery(url.percentEncodedQuery),
            canonicalHeaders, signedHeaders, payloadHash,
        ].joined(separator: "\n")
        let scope = "\(day)/\(region)/\(service)/aws4_request"
        let stringToSign = ["AWS4-HMAC-SHA256", amzDate, scope, Self.hex(Crypto.SHA256.hash(data: Array(canonicalRequest.utf8)))]
            .joined(separator: "\n")
        var key = SymmetricKey(data: Array(("AWS4" + credentials.secretAccessKey).utf8))
        for part in [day, region, service, "aws4_request"] {
            key = SymmetricKey(data: Array(HMAC<Crypto.SHA256>.authenticationCode(for: Array(part.utf8), using: key)))
        }
        let signature = Self.hex(HMAC<Crypto.SHA256>.authenticationCode(for: Array(stringToSign.utf8), using: key))
        added.append(("Authorization",
                      "AWS4-HMAC-SHA256 Credential=\(credentials.accessKeyID)/\(scope), SignedHeaders=\(signedHeaders), Signature=\(signature)"))
        return added
    }

    /// `20130524T000000Z` and `20130524`, in UTC.
    static func timestamps(_ date: Date) -> (String, String) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        func two(_ value: Int?) -> String { let value = value ?? 0; return value < 10 ? "0\(value)" : "\(value)" }
        let day = "\(parts.year ?? 1970)\(two(parts.month))\(two(parts.day))"
        return ("\(day)T\(two(parts.hour))\(two(parts.minute))\(two(parts.second))Z", day)
    }

    /// Characters S3 leaves as they are in a path or query (RFC 3986's unreserved ones).
    static func encode(_ text: String, keepSlash: Bool = false) -> String {
        var result = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                result.unicodeScalars.append(Unicode.Scalar(byte))
            case UInt8(ascii: "/") where keepSlash:
                result += "/"
            default:
                let digits = Array("0123456789ABCDEF")
                result += "%" + String(digits[Int(byte >> 4)]) + String(digits[Int(byte & 15)])
            }
        }
        return result
    }

    /// The path as sent (already encoded once, as S3 wants it: not encoded twice).
    static func canonicalPath(_ encoded: String) -> String {
        encoded.isEmpty ? "/" : encoded
    }

    /// The query's pairs, each name and value encoded, sorted; a name alone gets an empty value.
    static func canonicalQuery(_ encoded: String?) -> String {
        guard let encoded, !encoded.isEmpty else { return "" }
        let pairs = encoded.split(separator: "&").map { pair -> (String, String) in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map { String($0).removingPercentEncoding ?? String($0) }
            return (encode(parts[0]), encode(parts.count > 1 ? parts[1] : ""))
        }
        return pairs.sorted { $0.0 == $1.0 ? $0.1 < $1.1 : $0.0 < $1.0 }.map { "\($0.0)=\($0.1)" }.joined(separator: "&")
    }

    static func hex<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        bytes.map { $0 < 16 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
    }
}
