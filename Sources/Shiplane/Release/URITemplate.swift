import Foundation

/// Expands RFC 6570 URI templates (levels 1–3), such as GitHub's `…/assets{?name,label}`.
package enum URITemplate {
    /// `template` with every expression replaced; undefined variables are left out.
    package static func expand(_ template: String, with variables: [String: String]) -> String {
        var result = ""
        var rest = Substring(template)
        while let open = rest.firstIndex(of: "{") {
            result += rest[..<open]
            guard let close = rest[open...].firstIndex(of: "}") else {
                result += rest[open...]
                return result
            }
            result += expandExpression(rest[rest.index(after: open)..<close], variables)
            rest = rest[rest.index(after: close)...]
        }
        return result + rest
    }

    private static func expandExpression(_ expression: Substring, _ variables: [String: String]) -> String {
        var names = expression
        var op: Character?
        if let first = names.first, "+#./;?&".contains(first) {
            op = first
            names = names.dropFirst()
        }
        let (prefix, separator, named, allowReserved): (String, String, Bool, Bool) = {
            switch op {
            case "+": return ("", ",", false, true)
            case "#": return ("#", ",", false, true)
            case ".": return (".", ".", false, false)
            case "/": return ("/", "/", false, false)
            case ";": return (";", ";", true, false)
            case "?": return ("?", "&", true, false)
            case "&": return ("&", "&", true, false)
            default: return ("", ",", false, false)
            }
        }()
        var parts: [String] = []
        for name in names.split(separator: ",") {
            let key = String(name).trimmingCharacters(in: .whitespaces)
            guard let value = variables[key] else { continue }
            let encoded = percentEncode(value, allowReserved: allowReserved)
            if named {
                parts.append(value.isEmpty && op == ";" ? key : "\(key)=\(encoded)")
            } else {
                parts.append(encoded)
            }
        }
        return parts.isEmpty ? "" : prefix + parts.joined(separator: separator)
    }

    /// Percent-encodes all but unreserved characters (and reserved ones when `allowReserved`).
    static func percentEncode(_ value: String, allowReserved: Bool) -> String {
        var allowed = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        if allowReserved { allowed.insert(charactersIn: ":/?#[]@!$&'()*+,;=") }
        return value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value
    }
}
