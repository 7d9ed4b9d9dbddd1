import Foundation

extension MatchStore {
    /// The fastlane version `match_version.txt` names when Shiplane starts a store: the release
    /// whose storage and encryption (v2) Shiplane writes, read from fastlane's sources.
    package static let writtenMatchVersion = "2.237.0"

    /// The README a store Shiplane starts gets at its root: what the store is and how to use it,
    /// in Shiplane's own words. A store that has a README (match's, or the team's) keeps it; match
    /// replaces this one with its own template the next time it writes.
    package static let readmeText = """
        # Code signing store

        This repository holds a team's code signing certificates (`certs/<type>/<id>.cer` and
        `.p12`) and provisioning profiles (`profiles/<type>/<Type>_<bundle id>.mobileprovision`)
        in fastlane match's layout. Every file except this one and `match_version.txt` is
        encrypted with the store's password (`MATCH_PASSWORD`).

        Keep this repository private: only the people and CI jobs that sign builds need access.

        Read it with either tool:

        ```
        shiplane match appstore --readonly
        fastlane match appstore --readonly
        ```

        Do not edit these files by hand: `shiplane match` and `fastlane match` write them.

        """

    /// The plain files match adds to a write (`Match::Storage::Interface#save_changes!`):
    /// `match_version.txt` (the version, no newline, unencrypted) when the store has none — a
    /// store another match version wrote keeps its own — and a README when the store has none.
    /// - Parameter current: the store's file at a path, nil when it has none.
    package static func firstUseFiles(current: (String) throws -> Data?) rethrows -> [(path: String, data: Data)] {
        var files: [(path: String, data: Data)] = []
        if try current(versionFile) == nil { files.append((versionFile, Data(writtenMatchVersion.utf8))) }
        let readme = Data(readmeText.utf8)
        if try current("README.md") == nil { files.append(("README.md", readme)) }
        return files
    }
}
