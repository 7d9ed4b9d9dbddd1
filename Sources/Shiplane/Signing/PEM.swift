import Foundation

/// PEM text (RFC 7468): the blocks between `-----BEGIN LABEL-----` and `-----END LABEL-----`
/// lines, each with its label and the DER bytes of its base64 body. One reader for every key and
/// certificate Shiplane takes as text (attestation keys, registry signing keys and chains).
enum PEM {
    /// Every complete block of `text`, in order. Header lines inside a block (`Proc-Type: …`, RFC
    /// 1421's encapsulated headers) are skipped; a block whose body is not base64 is left out.
    static func blocks(_ text: String) -> [(label: String, der: Data)] {
        var blocks: [(String, Data)] = []
        var label: String?
        var body = ""
        for raw in text.split(whereSeparator: \.isNewline) {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("-----BEGIN "), line.hasSuffix("-----") {
                label = String(line.dropFirst(11).dropLast(5)); body = ""
            } else if line.hasPrefix("-----END "), let open = label {
                if let der = Data(base64Encoded: body) { blocks.append((open, der)) }
                label = nil
            } else if label != nil, !line.contains(":") {
                body += line
            }
        }
        return blocks
    }

    /// The DER bytes of the first block labelled `label`, or nil.
    static func first(_ label: String, in text: String) -> Data? {
        blocks(text).first { $0.label == label }?.der
    }
}
