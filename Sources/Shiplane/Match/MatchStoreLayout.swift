import Foundation

/// What a match store holds, read from its paths as match lays them out:
/// `certs/<type>/<certificate id>.cer` and `.p12`, `profiles/<type>/<Type>_<bundle id>.mobileprovision`
/// (`.provisionprofile` for macOS), `match_version.txt` and the README match writes. In a bucket
/// (match's S3 and Google Cloud Storage storage) the same paths stand under a folder named after
/// the team id (`TEAM123456/certs/…`): the team is read from it.
package struct MatchStoreLayout: Equatable, Sendable {
    package struct Certificate: Equatable, Sendable {
        /// The team folder the files stand in (a bucket's layout), nil in a git store.
        package var team: String?
        /// `development`, `distribution`, `enterprise`, `developer_id_application`, …
        package var type: String
        /// The certificate's id at Apple (the file's name).
        package var id: String
        /// Whether the `.cer` and the `.p12` (its private key) are both there.
        package var hasCertificate: Bool
        package var hasPrivateKey: Bool
    }

    package struct Profile: Equatable, Sendable {
        /// The team folder the file stands in (a bucket's layout), nil in a git store.
        package var team: String?
        /// The folder: `development`, `appstore`, `adhoc`, `enterprise`, `developer_id`.
        package var type: String
        /// The name's part before the first `_`: `Development`, `AppStore`, `AdHoc`, `InHouse`, `Direct`.
        package var kind: String
        /// The rest of the name: the bundle id (match adds a platform for tvOS and macOS ones).
        package var bundleID: String
        /// The file, relative to the store.
        package var path: String
    }

    package var certificates: [Certificate] = []
    package var profiles: [Profile] = []
    /// `match_version.txt`'s first line, when there is one.
    package var matchVersion: String?
    /// Encrypted files in places match does not put them (listed, still decrypted and encrypted).
    package var otherEncryptedFiles: [String] = []

    /// The layout of these relative paths (those of `MatchStore.encryptedFiles`).
    package init(encryptedFiles: [String], matchVersion: String?) {
        self.matchVersion = matchVersion
        var certificates: [String: Certificate] = [:]
        for path in encryptedFiles {
            let parts = path.split(separator: "/").map(String.init)
            let name = parts.last ?? path
            let dot = name.lastIndex(of: ".")
            let stem = dot.map { String(name[..<$0]) } ?? name
            let ext = dot.map { String(name[name.index(after: $0)...]) } ?? ""
            // certs/… or profiles/… at the top, or under one team folder.
            let team = parts.count == 4 ? parts[0] : nil
            let tail = Array(parts.suffix(3))
            if parts.count == 3 || parts.count == 4, tail[0] == "certs", ext == "cer" || ext == "p12" {
                let key = (team ?? "") + "/" + tail[1] + "/" + stem
                var certificate = certificates[key] ?? Certificate(team: team, type: tail[1], id: stem, hasCertificate: false, hasPrivateKey: false)
                if ext == "cer" { certificate.hasCertificate = true } else { certificate.hasPrivateKey = true }
                certificates[key] = certificate
            } else if parts.count == 3 || parts.count == 4, tail[0] == "profiles", ext == "mobileprovision" || ext == "provisionprofile",
                      let underscore = stem.firstIndex(of: "_") {
                profiles.append(Profile(
                    team: team, type: tail[1], kind: String(stem[..<underscore]), bundleID: String(stem[stem.index(after: underscore)...]), path: path
                ))
            } else {
                otherEncryptedFiles.append(path)
            }
        }
        self.certificates = certificates.values.sorted { ($0.team ?? "", $0.type, $0.id) < ($1.team ?? "", $1.type, $1.id) }
        profiles.sort { ($0.team ?? "", $0.type, $0.bundleID) < ($1.team ?? "", $1.type, $1.bundleID) }
    }

    /// One line per certificate and profile, for the command's output.
    package var lines: [String] {
        var lines: [String] = []
        for certificate in certificates {
            let parts = [certificate.hasCertificate ? ".cer" : nil, certificate.hasPrivateKey ? ".p12" : nil].compactMap { $0 }
            let team = certificate.team.map { " of team \($0)" } ?? ""
            lines.append("certificate \(certificate.type)/\(certificate.id) (\(parts.joined(separator: ", ")))\(team)")
        }
        for profile in profiles {
            lines.append("profile \(profile.type) \(profile.bundleID) (\(profile.kind))" + (profile.team.map { " of team \($0)" } ?? ""))
        }
        for other in otherEncryptedFiles { lines.append("file \(other)") }
        return lines
    }
}
