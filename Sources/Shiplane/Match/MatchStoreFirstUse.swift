import Foundation

extension MatchStore {
    /// The fastlane version `match_version.txt` names when Shiplane starts a store: the release
    /// whose storage and encryption (v2) Shiplane writes, read from fastlane's sources.
    package static let writtenMatchVersion = "2.237.0"

    /// The README match writes at a store's root (fastlane's `match/lib/assets/READMETemplate.md`,
    /// MIT licence, byte for byte: match rewrites it whenever it differs).
    package static let readmeText = """
        ## [fastlane match](https://docs.fastlane.tools/actions/match/)

        > Do not modify this file, as it gets overwritten every time you run _match_.

        This repository contains all your certificates and provisioning profiles needed to build and sign your applications. They are encrypted using OpenSSL via a passphrase.

        **Important:** Make sure this repository is set to private and only your team members have access to this repo.

        ### Installation

        Make sure you have the latest version of the Xcode command line tools installed:

        ```
        xcode-select --install
        ```

        Install _fastlane_ using bundler by following instructions here on [fastlane docs](https://docs.fastlane.tools).

        or alternatively using\u{20}

        `brew install fastlane`

        ### Usage

        Navigate to your project folder and run

        ```
        fastlane match appstore
        ```

        ```
        fastlane match adhoc
        ```

        ```
        fastlane match development
        ```

        ```
        fastlane match enterprise
        ```

        For more information open [fastlane match git repo](https://docs.fastlane.tools/actions/match/)

        ### Content

        #### certs

        This directory contains all your certificates with their private keys

        #### profiles

        This directory contains all provisioning profiles

        ---

        For more information open [fastlane match git repo](https://docs.fastlane.tools/actions/match/)

        """

    /// The plain files match adds to a write (`Match::Storage::Interface#save_changes!`):
    /// `match_version.txt` (the version, no newline, unencrypted) when the store has none — a
    /// store another match version wrote keeps its own — and the README when it is missing or
    /// differs from match's.
    /// - Parameter current: the store's file at a path, nil when it has none.
    package static func firstUseFiles(current: (String) throws -> Data?) rethrows -> [(path: String, data: Data)] {
        var files: [(path: String, data: Data)] = []
        if try current(versionFile) == nil { files.append((versionFile, Data(writtenMatchVersion.utf8))) }
        let readme = Data(readmeText.utf8)
        if try current("README.md") != readme { files.append(("README.md", readme)) }
        return files
    }
}
