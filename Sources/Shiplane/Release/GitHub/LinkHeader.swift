import Foundation

/// Reads RFC 8288 `Link` headers, as GitHub uses them for pagination.
enum LinkHeader {
    /// The URL with `rel="<relation>"`, e.g. the next page.
    static func url(for relation: String, in header: String?) -> String? {
        guard let header else { return nil }
        for link in header.split(separator: ",") {
            let pieces = link.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let target = pieces.first, target.hasPrefix("<"), target.hasSuffix(">") else { continue }
            let relations = pieces.dropFirst().compactMap { piece -> [String]? in
                let pair = piece.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                guard pair.count == 2, pair[0].lowercased() == "rel" else { return nil }
                return pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\"")).split(separator: " ").map(String.init)
            }.flatMap { $0 }
            if relations.contains(relation) { return String(target.dropFirst().dropLast()) }
        }
        return nil
    }
}
