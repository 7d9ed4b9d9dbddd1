import Foundation
internal import Git

/// The work of one match step (`MatchSigning`): the store read and decrypted in memory, App
/// Store Connect asked, what is missing made, the store written through recorded effects.
struct MatchSync {
    let step: StepContext
    let request: MatchSigning
    let store: String
    let password: String
    /// The store's repository, when `store` names one (match's `git_url`); nil for a folder.
    let git: MatchGitStore?
    /// The store's bucket, when `store` names one (match's S3 or google_cloud storage); nil otherwise.
    let bucket: MatchBucketStore?
    /// Decrypted store files by path (relative to the store), read once.
    private var decrypted: [String: Data] = [:]
    private var changes: [String] = []
    /// A repository store's files to commit (path → encrypted or plain bytes), in order.
    private var staged: [(path: String, contents: Data?)] = []
    /// Whether this step wrote into the store (match adds its version file and README then).
    private var wroteStore = false
    /// Keys kept for Apple's answer whose certificate is now written: dropped once it is stored for good.
    private var settledKeys: [(type: String, digest: String)] = []

    init(step: StepContext, request: MatchSigning, store: String, password: String, git: MatchGitStore? = nil, bucket: MatchBucketStore? = nil) {
        self.bucket = bucket
        self.step = step
        self.request = request
        self.store = store
        self.password = password
        self.git = git
    }

    private var pendingKeys: PendingSigningKeys { PendingSigningKeys(lane: step.lane, password: password, remote: git, bucket: bucket) }

    /// The store's file as it is (encrypted), staged writes first; nil when it has none.
    private func rawStoreFile(_ path: String) throws -> Data? {
        if let bucket {
            if let staged = staged.last(where: { $0.path == path }) { return staged.contents }
            return bucket.contents(path)
        }
        guard let git else { return FileManager.default.contents(atPath: store + "/" + path) }
        if let staged = staged.last(where: { $0.path == path }) { return staged.contents }
        return try git.contents(path)
    }

    /// The names of the store's files directly in `folder`.
    private func storeNames(in folder: String) -> [String] {
        let held: [String]
        if let bucket { held = bucket.names(in: folder) } else if let git { held = git.names(in: folder) } else {
            return ((try? FileManager.default.contentsOfDirectory(atPath: store + "/" + folder)) ?? []).sorted()
        }
        return Set(held + staged.filter { ($0.path as NSString).deletingLastPathComponent == folder }.map { ($0.path as NSString).lastPathComponent }).sorted()
    }

    private var kind: MatchKind { request.kind }
    private var renewBefore: Date { step.lane.state.now().addingTimeInterval(Double(request.renewWithinDays) * 86_400) }

    // MARK: - Store

    /// The store's file, decrypted; nil when it is not there.
    /// - Throws: `MatchStoreError` naming the file when it does not decrypt.
    private mutating func storeFile(_ path: String) throws -> Data? {
        if let known = decrypted[path] { return known }
        guard let text = try rawStoreFile(path) else { return nil }
        switch MatchEncryption.decrypt(text, password: password, plausible: MatchStore.plausibility(for: path)) {
        case .success(let (data, _)):
            decrypted[path] = data
            return data
        case .failure(let failure):
            throw MatchStoreError.files([MatchFileProblem(from: failure, file: path)], of: 1, doing: "read \(path)", folder: store)
        }
    }

    /// The store's certificates of this type that have their key and are valid until `after`,
    /// latest expiry first.
    private mutating func storedCertificates(validAfter after: Date) throws -> [(id: String, certificate: SigningCertificate, der: Data, key: Data)] {
        let names = storeNames(in: "certs/" + kind.certificateFolder).filter { $0.hasSuffix(".cer") }
        var found: [(String, SigningCertificate, Data, Data)] = []
        for name in names {
            let id = String(name.dropLast(4))
            let base = "certs/\(kind.certificateFolder)/\(id)"
            guard let der = try storeFile(base + ".cer"), let key = try storeFile(base + ".p12"),
                  let certificate = SigningCertificate(der: der), certificate.expires > after else { continue }
            // match's own `.p12` is the PEM key (fastlane's cert writes it so): it must be this
            // certificate's. One imported as PKCS#12 (`match import`) cannot be opened without its
            // password and is taken as it is.
            if key.starts(with: Data("-----BEGIN".utf8)) {
                guard let signingKey = try? SigningKey(pem: String(decoding: key, as: UTF8.self)),
                      signingKey.publicKeyDigest == certificate.publicKeyDigest else { continue }
            }
            found.append((id, certificate, der, key))
        }
        return found.sorted { $0.1.expires > $1.1.expires }
    }

    /// Writes `data` encrypted to the store's `path`, recorded with its undo (the old bytes put
    /// back); nothing when the store's file already decrypts to `data`. A dry run says what it
    /// would write.
    private mutating func writeStore(_ data: Data, to path: String, label: String) throws {
        if let current = try? storeFile(path), current == data { return }
        guard !step.isDryRun else {
            step.log("would write \(label) to \(path) in the store")
            changes.append("would write \(path)")
            return
        }
        let encrypted = try MatchEncryption.encrypt(data, password: password)
        try writeStoreBytes(encrypted, to: path)
        decrypted[path] = data
        changes.append("wrote \(path)")
    }

    /// Writes `bytes` as they are to the store's `path`: staged for the commit in a repository,
    /// else written with its undo (the old bytes put back).
    private mutating func writeStoreBytes(_ bytes: Data, to path: String) throws {
        wroteStore = true
        guard git == nil, bucket == nil else {
            staged.append((path, bytes))
            return
        }
        let full = store + "/" + path
        let encrypted = bytes
        let before = FileManager.default.contents(atPath: full)
        let handle = try step.record(
            FileWritten(path: full, saved: try step.saveCopy(before), afterHash: SHA256.hex(of: encrypted)),
            before == nil ? "remove \(path) from the match store" : "restore \(path) in the match store")
        let folder = (full as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try step.lane.fileSystem.write(encrypted, to: full)
        step.done(handle)
    }

    /// Ends the step's writes: match's version file and README added on the store's first use
    /// (and the README brought back to match's), then, for a repository, one commit pushed by
    /// compare and swap through a recorded effect (its undo reverts it); then the keys kept for
    /// Apple's answer are dropped. Nothing when the step wrote nothing.
    mutating func finishWrites() async throws {
        guard !step.isDryRun else { return }
        for file in wroteStore ? try MatchStore.firstUseFiles(current: { try rawStoreFile($0) }) : [] {
            try writeStoreBytes(file.data, to: file.path)
            changes.append("wrote \(file.path)")
        }
        if let git, !staged.isEmpty {
            var latest: [String: Data?] = [:]
            var order: [String] = []
            for (path, contents) in staged {
                if latest[path] == nil { order.append(path) }
                latest[path] = .some(contents)
            }
            let files = order.map { (path: $0, contents: latest[$0] ?? nil) }
            let message = "[shiplane] Updated \(kind.rawValue) and platform \(request.platform.rawValue)"
            let commit = try await git.pushRecorded(files, message: message, step: step)
            step.log("pushed \(files.count) file\(files.count == 1 ? "" : "s") to \(git.shown) (\(git.branch)), commit \(commit.short)")
            staged = []
        }
        if let bucket, !staged.isEmpty {
            var latest: [String: Data] = [:]
            var order: [String] = []
            for (path, contents) in staged {
                guard let contents else { continue }
                if latest[path] == nil { order.append(path) }
                latest[path] = contents
            }
            let files = order.compactMap { path in latest[path].map { (path: path, contents: $0) } }
            let written = try await bucket.write(files, step: step)
            if !written.isEmpty { step.log("wrote \(written.count) file\(written.count == 1 ? "" : "s") in \(bucket.shown)\(bucket.team.map { " (team \($0))" } ?? "")") }
            staged = []
        }
        for key in settledKeys { await pendingKeys.remove(type: key.type, digest: key.digest) }
        settledKeys = []
    }

    // MARK: - Readonly

    /// Readonly: the store alone must hold a valid certificate with its key and a valid profile
    /// per bundle ID; every missing piece is named at once.
    mutating func readStoreOnly() throws -> MatchSigningResult {
        var problems: [String] = []
        let certificates = try storedCertificates(validAfter: step.lane.state.now())
        if certificates.isEmpty {
            problems.append("the store holds no valid \(kind.rawValue) certificate with its private key under certs/\(kind.certificateFolder)/")
        }
        var profiles: [MatchSigningResult.Profile] = []
        for bundleID in request.appIdentifiers {
            let path = kind.profilePath(bundleID: bundleID, platform: request.platform)
            guard let data = try storeFile(path), let info = ProvisioningProfileInfo(data) else {
                problems.append("the store holds no \(kind.rawValue) profile for \(bundleID) (\(path))")
                continue
            }
            if let expires = info.expires, expires <= step.lane.state.now() {
                problems.append("the \(kind.rawValue) profile for \(bundleID) expired on \(String(RunStore.iso8601(expires).prefix(10))) (\(path))")
                continue
            }
            profiles.append(.init(bundleID: bundleID, name: info.name, uuid: info.uuid, path: path, expires: info.expires))
        }
        guard problems.isEmpty, let chosen = certificates.first else {
            throw ValidationFailure(
                problems: problems,
                suggestion: "run match without readonly where the App Store Connect key is set (`shiplane match \(kind.rawValue)`) to make them; readonly changed nothing")
        }
        return MatchSigningResult(type: kind.rawValue, certificateID: chosen.id, identity: chosen.certificate.commonName,
                                  teamID: chosen.certificate.organizationalUnit, certificateExpires: chosen.certificate.expires,
                                  profiles: profiles, changes: [])
    }

    // MARK: - Up to date

    /// Asks App Store Connect, and makes what is missing or about to expire.
    mutating func bringUpToDate() async throws -> MatchSigningResult {
        let lane = step.lane
        let variables = lane.environment.variables
        let credentials: AppStoreConnectCredentials
        do {
            credentials = try AppStoreConnectStore.readCredentials(variables, workingDirectory: lane.workingDirectory)
        } catch let failure as ValidationFailure {
            throw ValidationFailure(problems: failure.problems, suggestion: (failure.suggestion ?? "") + "; or run with readonly to only read the store")
        }
        let client = AppStoreConnectStore.connect(credentials, app: nil, variables: variables, transport: step.httpTransport(),
                                                  now: lane.state.now).client
        let certificate = try await ensureCertificate(client)
        var profiles: [MatchSigningResult.Profile] = []
        let deviceIDs = kind.includesDevices ? try await ensureDevices(client) : nil
        for bundleID in request.appIdentifiers {
            let bundleResource = try await ensureBundleID(bundleID, client)
            profiles.append(try await ensureProfile(bundleID, bundleResourceID: bundleResource, certificateID: certificate.id, deviceIDs: deviceIDs, client))
        }
        return MatchSigningResult(type: kind.rawValue, certificateID: certificate.id, identity: certificate.certificate.commonName,
                                  teamID: certificate.certificate.organizationalUnit, certificateExpires: certificate.certificate.expires,
                                  profiles: profiles, changes: changes)
    }

    /// A certificate of the type that Apple still lists, valid past the renewal window, with its
    /// key in the store — or a new one (adopting one a killed run asked for).
    private mutating func ensureCertificate(_ client: AppStoreConnectClient) async throws -> (id: String, certificate: SigningCertificate) {
        let types = kind.certificateTypes(for: request.platform)
        let atApple = try await client.certificates(types: types)
        let appleIDs = Set(atApple.map(\.id))
        let pending = pendingKeys
        if let stored = try storedCertificates(validAfter: renewBefore).first(where: { appleIDs.contains($0.id) }) {
            // A key kept for this certificate (a run stopped after the store took it) is no longer needed.
            for (digest, _) in pending.keys(type: types[0]) where digest == stored.certificate.publicKeyDigest {
                settledKeys.append((types[0], digest))
            }
            return (stored.id, stored.certificate)
        }
        // A key an earlier run made: if Apple holds a certificate for it, that run's request landed.
        for (digest, key) in pending.keys(type: types[0]) {
            if let resource = atApple.first(where: { Self.certificate(of: $0)?.publicKeyDigest == digest }),
               let der = Self.certificateDER(of: resource), let certificate = SigningCertificate(der: der) {
                step.log("adopted certificate \(resource.id): an earlier run asked for it and was stopped before it stored it")
                if let earlier = step.lane.state.journal.earlierAttempt(step: step.number, kind: SigningCertificateCreated.kind) {
                    step.lane.state.journal.done(earlier.handle, effect: try? AnyEffect(SigningCertificateCreated(
                        api: client.apiBaseURL, certificateType: types[0], publicKeyDigest: digest, certificateID: resource.id)))
                }
                try storeCertificate(id: resource.id, der: der, key: key.pem)
                changes.append("adopted certificate \(resource.id)")
                settledKeys.append((types[0], digest))
                return (resource.id, certificate)
            }
        }
        guard !step.isDryRun else {
            step.log("would create a \(types[0]) certificate from a new RSA 2048 key and store it in certs/\(kind.certificateFolder)/")
            changes.append("would create a \(types[0]) certificate")
            return ("(new)", SigningCertificate(publicKeyDigest: "", expires: renewBefore, commonName: nil, organizationalUnit: nil))
        }
        let key = try pending.keys(type: types[0]).first?.key ?? SigningKey.generate()
        step.lane.registerSecret(String(decoding: key.pem, as: UTF8.self))
        // Recorded first: a rollback deletes the kept key with the certificate it was kept for.
        let kept = try step.record(pending.keptEffect(key, type: types[0]), "delete the kept key of the \(types[0]) certificate asked for")
        try await pending.save(key, type: types[0])
        step.done(kept)
        let csr = try key.certificateSigningRequestPEM(commonName: "Shiplane match \(kind.rawValue)")
        var effect = SigningCertificateCreated(api: client.apiBaseURL, certificateType: types[0], publicKeyDigest: key.publicKeyDigest)
        let handle = try step.record(effect, "revoke the \(types[0]) certificate this run created")
        let resource = try await client.createCertificate(type: types[0], csrPEM: csr)
        effect.certificateID = resource.id
        step.done(handle, effect)
        guard let der = Self.certificateDER(of: resource), let certificate = SigningCertificate(der: der),
              certificate.publicKeyDigest == key.publicKeyDigest else {
            throw ShiplaneError("App Store Connect answered certificate \(resource.id) without a certificate for the key it was sent",
                                suggestion: "run again: the certificate is found by its key; or revoke it in the developer portal")
        }
        try storeCertificate(id: resource.id, der: der, key: key.pem)
        settledKeys.append((types[0], key.publicKeyDigest))
        changes.append("created certificate \(resource.id)")
        return (resource.id, certificate)
    }

    private mutating func storeCertificate(id: String, der: Data, key: Data) throws {
        try writeStore(der, to: "certs/\(kind.certificateFolder)/\(id).cer", label: "certificate \(id)")
        try writeStore(key, to: "certs/\(kind.certificateFolder)/\(id).p12", label: "the private key of \(id)")
    }

    static func certificateDER(of resource: AppStoreConnectClient.CertificateResource) -> Data? {
        resource.attributes?.certificateContent.flatMap { Data(base64Encoded: $0, options: .ignoreUnknownCharacters) }
    }

    static func certificate(of resource: AppStoreConnectClient.CertificateResource) -> SigningCertificate? {
        certificateDER(of: resource).flatMap(SigningCertificate.init(der:))
    }

    /// The devices the profiles must list: those asked for registered first (they stay), then
    /// every enabled device of the platform.
    private mutating func ensureDevices(_ client: AppStoreConnectClient) async throws -> [String] {
        let platform = request.platform.bundleIDPlatform
        var enabled = try await client.enabledDevices(platform: platform)
        let known = Set(enabled.compactMap { $0.attributes?.udid?.lowercased() })
        for (name, udid) in request.devices.sorted(by: { $0.key < $1.key }) where !known.contains(udid.lowercased()) {
            guard !step.isDryRun else { changes.append("would register device \(name)"); continue }
            let handle = try step.record(SigningChangeStays(what: "device \(name) (\(udid)) registered"), "device \(name) stays registered")
            enabled.append(try await client.registerDevice(name: name, udid: udid, platform: platform))
            step.done(handle)
            changes.append("registered device \(name)")
        }
        return enabled.filter { ($0.attributes?.deviceClass).map(request.platform.deviceClasses.contains) ?? true }.map(\.id).sorted()
    }

    private mutating func ensureBundleID(_ identifier: String, _ client: AppStoreConnectClient) async throws -> String {
        if let found = try await client.bundleID(identifier: identifier) { return found.id }
        guard !step.isDryRun else {
            changes.append("would register the bundle ID \(identifier)")
            return "(new)"
        }
        var effect = BundleIDRegistered(api: client.apiBaseURL, identifier: identifier)
        let handle = try step.record(effect, "delete the bundle ID \(identifier) this run registered")
        // Apple's names take letters, digits and spaces.
        let name = identifier.map { $0.isLetter || $0.isNumber ? $0 : " " }.reduce(into: "") { $0.append($1) }
        let made = try await client.registerBundleID(identifier: identifier, name: name, platform: request.platform.bundleIDPlatform)
        effect.bundleIDResourceID = made.id
        step.done(handle, effect)
        changes.append("registered the bundle ID \(identifier)")
        return made.id
    }

    /// The profile match names for the bundle ID: kept when Apple holds it active, past the
    /// renewal window, with the certificate and every device; otherwise made again (the old one
    /// deleted). The store gets Apple's bytes.
    private mutating func ensureProfile(_ bundleID: String, bundleResourceID: String, certificateID: String, deviceIDs: [String]?,
                                        _ client: AppStoreConnectClient) async throws -> MatchSigningResult.Profile {
        guard let type = kind.profileType(for: request.platform) else { throw ShiplaneError("no profile type") }
        let name = kind.profileName(bundleID: bundleID, platform: request.platform)
        let path = kind.profilePath(bundleID: bundleID, platform: request.platform)
        let existing = bundleResourceID == "(new)" ? [] : try await client.profiles(type: type, name: name)
        var keep: AppStoreConnectClient.ProfileResource?
        var outdated: [(AppStoreConnectClient.ProfileResource, String)] = []
        for profile in existing {
            let attributes = profile.attributes
            var why: String?
            if request.forceProfiles { why = "force" }
            else if attributes?.profileState != "ACTIVE" { why = "it is \(attributes?.profileState ?? "not active")" }
            else if (AppStoreConnectClient.date(attributes?.expirationDate) ?? .distantPast) <= renewBefore { why = "it expires within \(request.renewWithinDays) days" }
            else if !(try await client.profileLinks(profile.id, "certificates")).contains(certificateID) { why = "it does not hold certificate \(certificateID)" }
            else if let deviceIDs {
                let listed = Set(try await client.profileLinks(profile.id, "devices"))
                let missing = deviceIDs.filter { !listed.contains($0) }
                if !missing.isEmpty { why = "it lacks \(missing.count) device\(missing.count == 1 ? "" : "s")" }
            }
            if let why { outdated.append((profile, why)) } else if keep == nil { keep = profile }
        }
        let resource: AppStoreConnectClient.ProfileResource
        if let keep {
            resource = keep
        } else if step.isDryRun {
            for (old, why) in outdated { changes.append("would delete profile \(old.id) (\(why))") }
            changes.append("would create the profile \(name)")
            return .init(bundleID: bundleID, name: name, uuid: "(new)", path: path, expires: nil)
        } else {
            for (old, why) in outdated {
                let handle = try step.record(SigningChangeStays(what: "profile \(name) (\(old.id)) deleted: \(why)"), "profile \(old.id) stays deleted")
                try await client.deleteProfile(id: old.id)
                step.done(handle)
                changes.append("deleted profile \(old.id) (\(why))")
            }
            var effect = ProvisioningProfileCreated(api: client.apiBaseURL, name: name, profileType: type, earlierIDs: existing.map(\.id))
            let handle = try step.record(effect, "delete the profile \(name) this run created")
            resource = try await client.createProfile(name: name, type: type, bundleID: bundleResourceID, certificates: [certificateID], devices: deviceIDs)
            effect.profileID = resource.id
            step.done(handle, effect)
            changes.append("created the profile \(name)")
        }
        guard let content = resource.attributes?.profileContent.flatMap({ Data(base64Encoded: $0, options: .ignoreUnknownCharacters) }),
              let info = ProvisioningProfileInfo(content) else {
            throw ShiplaneError("App Store Connect's profile \(resource.id) (\(name)) has no readable content", suggestion: "run again with force to make it anew")
        }
        try writeStore(content, to: path, label: "profile \(name)")
        return .init(bundleID: bundleID, name: info.name, uuid: info.uuid, path: path, expires: info.expires)
    }

    // MARK: - Install

    /// Decrypts the certificate, key and profiles into a private folder (0700, files 0600) and
    /// checks they belong together; on macOS with a keychain, imports them and installs the
    /// profiles. The folder is removed before the step ends.
    mutating func install(_ result: MatchSigningResult) async throws {
        guard !step.isDryRun, result.certificateID != "(new)" else { return }
        let scratch = try MatchScratch.make(base: MatchScratch.base(step.lane.environment.variables))
        defer { scratch.remove() }
        let base = "certs/\(kind.certificateFolder)/\(result.certificateID)"
        guard let der = try storeFile(base + ".cer"), let key = try storeFile(base + ".p12") else {
            throw MatchStoreError("the store lacks \(base).cer or .p12", category: .failure)
        }
        let certificatePath = try scratch.write(der, as: result.certificateID + ".cer")
        let keyPath = try scratch.write(key, as: result.certificateID + ".p12")
        var profiles: [(path: String, uuid: String, macOS: Bool)] = []
        for profile in result.profiles {
            guard let data = try storeFile(profile.path) else { continue }
            profiles.append((try scratch.write(data, as: (profile.path as NSString).lastPathComponent), profile.uuid, request.platform == .macOS))
        }
        guard let keychain = request.keychain else { return }
        #if os(macOS)
        let runner = step.lane.processRunner
        let environment = step.lane.environment.variables
        let listed = try await runner.run(
            ProcessInvocation(executable: "/usr/bin/security", arguments: ["list-keychains", "-d", "user"], environment: environment), onLine: { _, _ in })
        let keychainPassword = UUID().uuidString
        step.lane.registerSecret(keychainPassword)
        let plan = KeychainImportPlan(
            keychain: keychain, keychainPassword: keychainPassword, create: !FileManager.default.fileExists(atPath: keychain),
            searchList: KeychainImportPlan.searchList(from: listed.standardOutput), certificate: certificatePath, privateKey: keyPath,
            profiles: profiles, home: environment["HOME"] ?? NSHomeDirectory())
        try await plan.run(with: runner, environment: environment)
        #else
        _ = (certificatePath, keyPath, profiles)
        step.log("keychain \(keychain) not touched: importing into a keychain needs macOS")
        #endif
    }
}

/// Keys of certificates asked for but not yet in the store, kept encrypted with the match
/// password under the git folder (`.git/shiplane/stores/match-key-<type>-<digest>.json`), so a
/// run killed between Apple's answer and the store write finds the certificate again.
struct PendingSigningKeys {
    let state: StoreResumeState
    let password: String
    /// A repository store: the keys are kept there (any machine's next run finds them), not here.
    let remote: MatchGitStore?
    /// A bucket store: the keys are kept there, under `PREFIX.shiplane-match-keys/`.
    let bucket: MatchBucketStore?

    init(lane: LaneContext, password: String, remote: MatchGitStore? = nil, bucket: MatchBucketStore? = nil) {
        state = StoreResumeState(lane: lane)
        self.password = password
        self.remote = remote
        self.bucket = bucket
    }

    private struct Saved: Codable { var type: String; var digest: String; var key: String }

    func keys(type: String) -> [(digest: String, key: SigningKey)] {
        let saved: [Saved]
        if let held = remote?.pendingKeys ?? bucket?.pendingKeys {
            saved = held.filter { $0.key.hasPrefix("\(type)-") }.sorted { $0.key < $1.key }
                .compactMap { try? JSONDecoder().decode(Saved.self, from: $0.value) }
        } else {
            let names = ((try? FileManager.default.contentsOfDirectory(atPath: state.folder)) ?? []).filter { $0.hasPrefix("match-key-\(type)-") }.sorted()
            saved = names.compactMap { state.read(Saved.self, name: String($0.dropLast(".json".count))) }
        }
        return saved.compactMap { saved in
            guard saved.type == type,
                  case .success(let (pem, _)) = MatchEncryption.decrypt(Data(saved.key.utf8), password: password),
                  let key = try? SigningKey(pem: String(decoding: pem, as: UTF8.self)), key.publicKeyDigest == saved.digest else { return nil }
            return (saved.digest, key)
        }
    }

    func save(_ key: SigningKey, type: String) async throws {
        let encrypted = try MatchEncryption.encrypt(key.pem, password: password)
        let saved = Saved(type: type, digest: key.publicKeyDigest, key: String(decoding: encrypted, as: UTF8.self))
        if let remote {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            try await remote.pushKey(try encoder.encode(saved), name: "\(type)-\(key.publicKeyDigest.prefix(16))")
        } else if let bucket {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            try await bucket.putKey(try encoder.encode(saved), name: "\(type)-\(key.publicKeyDigest.prefix(16))")
        } else {
            try state.write(saved, name: "match-key-\(type)-\(key.publicKeyDigest.prefix(16))")
        }
    }

    /// The effect of keeping `key`: its ref in the repository, or its file under the git folder.
    func keptEffect(_ key: SigningKey, type: String) -> any Effect {
        let name = "\(type)-\(key.publicKeyDigest.prefix(16))"
        if let bucket { return bucket.keptKey(name: name) }
        if let remote { return MatchKeyKept(repository: remote.shown, branch: remote.branch, name: name, file: nil) }
        return MatchKeyKept(repository: nil, branch: nil, name: name, file: state.folder + "/match-key-\(name).json")
    }

    func remove(type: String, digest: String) async {
        if let remote {
            _ = await remote.deleteKey(name: "\(type)-\(digest.prefix(16))")
        } else if let bucket {
            _ = await bucket.deleteKey(name: "\(type)-\(digest.prefix(16))")
        } else {
            state.remove(name: "match-key-\(type)-\(digest.prefix(16))")
        }
    }
}
