import Foundation

/// A match store on disk (a checkout of the team's match repository, or a folder synced from its
/// bucket): decrypted as a whole into a private folder, encrypted back, its password changed.
///
/// Every operation reads and decrypts (or encrypts) everything in memory first: a wrong password
/// or a damaged file stops it with every failing file named, before anything is written. Writes
/// into a store replace each file atomically and, when one fails, put back the ones already
/// written.
package enum MatchStore {
    /// The extensions match encrypts (`Match::Encryption::OpenSSL#iterate`).
    package static let encryptedExtensions: Set<String> = ["cer", "p12", "mobileprovision", "provisionprofile"]
    /// The file match writes with its version (kept in plain text).
    package static let versionFile = "match_version.txt"

    /// What a folder holds: the files match encrypts and the others (`match_version.txt`, the
    /// README), relative to it, sorted. Hidden files and folders (`.git`) are left out, as Ruby's
    /// `Dir[…/**/…]` leaves them out.
    package struct Contents: Sendable {
        package var encrypted: [String] = []
        package var plain: [String] = []
    }

    /// What a finished operation did.
    package struct Outcome: Sendable {
        /// The files decrypted or encrypted, relative to the store.
        package var files: [String]
        /// The plain files copied (`match_version.txt`, the README).
        package var copied: [String]
        /// The store's layout.
        package var layout: MatchStoreLayout
        /// The format each decrypted file had (decrypting and changing the password).
        package var formats: [String: MatchEncryptionFormat] = [:]
        /// Changing the password: files that already had the new one (a run cut short before).
        package var alreadyChanged: [String] = []
    }

    /// Lists `folder`.
    /// - Throws: `MatchStoreError` (usage) when it is not a folder; a problem per symbolic link.
    package static func contents(of folder: String) throws -> Contents {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
            throw MatchStoreError("\(folder) is not a folder", suggestion: "name the match store's folder (a checkout of its repository)", category: .usage)
        }
        var contents = Contents()
        var links: [MatchFileProblem] = []
        func walk(_ relative: String) throws {
            let path = relative.isEmpty ? folder : folder + "/" + relative
            for name in try FileManager.default.contentsOfDirectory(atPath: path).sorted() where !name.hasPrefix(".") {
                let child = relative.isEmpty ? name : relative + "/" + name
                let attributes = try FileManager.default.attributesOfItem(atPath: folder + "/" + child)
                let type = attributes[.type] as? FileAttributeType
                if type == .typeDirectory {
                    try walk(child)
                } else if type == .typeSymbolicLink {
                    if encryptedExtensions.contains((name as NSString).pathExtension) { links.append(MatchFileProblem(file: child, reason: .symbolicLink)) }
                } else if type == .typeRegular {
                    if encryptedExtensions.contains((name as NSString).pathExtension) {
                        contents.encrypted.append(child)
                    } else {
                        contents.plain.append(child)
                    }
                }
            }
        }
        try walk("")
        guard links.isEmpty else {
            throw MatchStoreError("\(folder) holds symbolic links where match keeps files; nothing was read", info: [("folder", folder)], problems: links)
        }
        return contents
    }

    /// The layout of a store or decrypted folder.
    package static func layout(of folder: String, contents: Contents) -> MatchStoreLayout {
        let version = FileManager.default.contents(atPath: folder + "/" + versionFile).flatMap {
            String(decoding: $0, as: UTF8.self).split(whereSeparator: \.isNewline).first.map { String($0).trimmingCharacters(in: .whitespaces) }
        }
        return MatchStoreLayout(encryptedFiles: contents.encrypted, matchVersion: version)
    }

    // MARK: Decrypt

    /// Decrypts every file of `store` into `output` (a new folder, mode 0700; files mode 0600),
    /// with the plain files beside them. `output` must not exist or be an empty folder. A dry run
    /// decrypts everything and writes nothing (so does each operation here).
    /// - Throws: `MatchStoreError` naming every file that does not decrypt; nothing is written.
    package static func decrypt(store: String, into output: String, password: String, dryRun: Bool = false) throws -> Outcome {
        let contents = try contents(of: store)
        var decrypted: [(String, Data)] = []
        var formats: [String: MatchEncryptionFormat] = [:]
        var problems: [MatchFileProblem] = []
        for file in contents.encrypted {
            switch read(store, file) {
            case .failure(let problem): problems.append(problem)
            case .success(let text):
                switch MatchEncryption.decrypt(text, password: password, plausible: plausibility(for: file)) {
                case .success(let (data, format)):
                    decrypted.append((file, data))
                    formats[file] = format
                case .failure(let failure): problems.append(MatchFileProblem(from: failure, file: file))
                }
            }
        }
        guard problems.isEmpty else { throw MatchStoreError.files(problems, of: contents.encrypted.count, doing: "decrypt \(store)", folder: store) }
        var plain: [(String, Data)] = []
        for file in contents.plain {
            if let data = FileManager.default.contents(atPath: store + "/" + file) { plain.append((file, data)) }
        }
        if !dryRun { try writeNewFolder(output, files: decrypted + plain) }
        return Outcome(files: contents.encrypted, copied: plain.map(\.0), layout: layout(of: store, contents: contents), formats: formats)
    }

    // MARK: Encrypt

    /// Encrypts every certificate, key and profile of the decrypted `folder` into `store` (made
    /// when missing), with the plain files (`match_version.txt`, the README) copied; files of the
    /// store that `folder` does not hold are left as they are.
    /// - Throws: `MatchStoreError` for an empty password, or naming every file that is already
    ///   encrypted or unreadable; nothing is written.
    package static func encrypt(
        folder: String, into store: String, password: String, format: MatchEncryptionFormat = .v2, dryRun: Bool = false
    ) throws -> Outcome {
        try requirePassword(password)
        let contents = try contents(of: folder)
        var writes: [(String, Data)] = []
        var problems: [MatchFileProblem] = []
        for file in contents.encrypted {
            switch read(folder, file) {
            case .failure(let problem): problems.append(problem)
            case .success(let data):
                if MatchEncryption.looksEncrypted(data) {
                    problems.append(MatchFileProblem(file: file, reason: .alreadyEncrypted))
                } else {
                    writes.append((file, try MatchEncryption.encrypt(data, password: password, format: format)))
                }
            }
        }
        guard problems.isEmpty else { throw MatchStoreError.files(problems, of: contents.encrypted.count, doing: "encrypt \(folder)", folder: folder) }
        var copied: [String] = []
        for file in contents.plain {
            guard let data = FileManager.default.contents(atPath: folder + "/" + file) else { continue }
            if FileManager.default.contents(atPath: store + "/" + file) != data {
                writes.append((file, data))
                copied.append(file)
            }
        }
        guard !dryRun else { return Outcome(files: contents.encrypted, copied: copied, layout: layout(of: folder, contents: contents)) }
        try replaceFiles(in: store, writes)
        let stored = try self.contents(of: store)
        return Outcome(files: contents.encrypted, copied: copied, layout: layout(of: store, contents: stored))
    }

    // MARK: Change the password

    /// Decrypts every file of `store` with `old` and encrypts it again with `new`, in place. A
    /// file that `old` does not open but `new` does (in the format asked for) is left as it is:
    /// a run killed halfway, run again, finishes the change.
    /// - Throws: `MatchStoreError` naming every file neither password decrypts; nothing is written.
    package static func changePassword(
        store: String, from old: String, to new: String, format: MatchEncryptionFormat = .v2, dryRun: Bool = false
    ) throws -> Outcome {
        try requirePassword(new)
        let contents = try contents(of: store)
        var writes: [(String, Data)] = []
        var formats: [String: MatchEncryptionFormat] = [:]
        var problems: [MatchFileProblem] = []
        var alreadyChanged: [String] = []
        for file in contents.encrypted {
            switch read(store, file) {
            case .failure(let problem): problems.append(problem)
            case .success(let text):
                switch MatchEncryption.decrypt(text, password: old, plausible: plausibility(for: file)) {
                case .success(let (data, was)):
                    formats[file] = was
                    writes.append((file, try MatchEncryption.encrypt(data, password: new, format: format)))
                case .failure(let failure):
                    guard failure == .wrongPassword, old != new,
                          case .success(let (data, was)) = MatchEncryption.decrypt(text, password: new, plausible: plausibility(for: file))
                    else {
                        problems.append(MatchFileProblem(from: failure, file: file))
                        continue
                    }
                    formats[file] = was
                    alreadyChanged.append(file)
                    if was != format { writes.append((file, try MatchEncryption.encrypt(data, password: new, format: format))) }
                }
            }
        }
        guard problems.isEmpty else {
            throw MatchStoreError.files(problems, of: contents.encrypted.count, doing: "change the password of \(store)", folder: store)
        }
        if !dryRun { try replaceFiles(in: store, writes) }
        return Outcome(
            files: contents.encrypted, copied: [], layout: layout(of: store, contents: contents), formats: formats, alreadyChanged: alreadyChanged
        )
    }

    // MARK: Helpers

    /// What a decrypted certificate, key or profile must look like: DER (a SEQUENCE, 0x30) or
    /// PEM. A legacy file's wrong key gives valid padding once in 256 tries; this catches it.
    static func plausibility(for file: String) -> (Data) -> Bool {
        { data in data.first == 0x30 || data.starts(with: Data("-----BEGIN".utf8)) }
    }

    private static func requirePassword(_ password: String) throws {
        guard !password.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw MatchStoreError("no password supplied", suggestion: "set MATCH_PASSWORD (match refuses an empty password too)", category: .environment)
        }
    }

    private static func read(_ folder: String, _ file: String) -> Result<Data, MatchFileProblem> {
        do {
            return .success(try Data(contentsOf: URL(fileURLWithPath: folder + "/" + file)))
        } catch {
            return .failure(MatchFileProblem(file: file, reason: .unreadable((error as NSError).localizedDescription)))
        }
    }

    /// Writes `files` into a new folder `output` (mode 0700, files 0600): staged beside it and
    /// renamed into place, so a failure leaves no half-written folder.
    private static func writeNewFolder(_ output: String, files: [(String, Data)]) throws {
        let manager = FileManager.default
        var isFolder: ObjCBool = false
        if manager.fileExists(atPath: output, isDirectory: &isFolder) {
            guard isFolder.boolValue, (try? manager.contentsOfDirectory(atPath: output))?.isEmpty == true else {
                throw MatchStoreError(
                    "\(output) exists and is not an empty folder; nothing was written",
                    suggestion: "name a new folder for the decrypted files (or leave --output out for a private temporary one)", category: .usage
                )
            }
        }
        let parent = (output as NSString).deletingLastPathComponent
        let staging = (parent.isEmpty ? "." : parent) + "/.shiplane-match-\(UUID().uuidString)"
        do {
            try manager.createDirectory(atPath: staging, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
            for (file, data) in files {
                let path = staging + "/" + file
                let folder = (path as NSString).deletingLastPathComponent
                try manager.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
                guard manager.createFile(atPath: path, contents: data, attributes: [.posixPermissions: 0o600]) else {
                    throw MatchStoreError("cannot write \(file) in \(staging)")
                }
            }
            if isFolder.boolValue { try manager.removeItem(atPath: output) }
            try manager.moveItem(atPath: staging, toPath: output)
        } catch {
            try? manager.removeItem(atPath: staging)
            if let error = error as? MatchStoreError { throw error }
            throw MatchStoreError("cannot write the decrypted files to \(output): \((error as NSError).localizedDescription); nothing was written", category: .environment)
        }
    }

    /// Replaces (or adds) `files` in `folder`, each atomically; when one fails, the ones already
    /// written get their old contents back (or are removed when they are new).
    private static func replaceFiles(in folder: String, _ files: [(String, Data)]) throws {
        let manager = FileManager.default
        var done: [(path: String, old: Data?)] = []
        var madeFolders: [String] = []
        do {
            for (file, data) in files {
                let path = folder + "/" + file
                let parent = (path as NSString).deletingLastPathComponent
                if !manager.fileExists(atPath: parent) {
                    try manager.createDirectory(atPath: parent, withIntermediateDirectories: true)
                    madeFolders.append(parent)
                }
                let old = manager.contents(atPath: path)
                try data.write(to: URL(fileURLWithPath: path), options: .atomic)
                done.append((path, old))
            }
        } catch {
            for (path, old) in done.reversed() {
                if let old { try? old.write(to: URL(fileURLWithPath: path), options: .atomic) } else { try? manager.removeItem(atPath: path) }
            }
            for made in madeFolders.reversed() where (try? manager.contentsOfDirectory(atPath: made))?.isEmpty == true {
                try? manager.removeItem(atPath: made)
            }
            throw MatchStoreError(
                "cannot write into \(folder): \((error as NSError).localizedDescription); the files written were put back",
                category: .environment
            )
        }
    }
}
