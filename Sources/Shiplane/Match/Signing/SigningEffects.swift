import Foundation

/// An App Store Connect client for an undo, with the API base the run used, through the `Store`
/// contract (`AppStoreConnectStore.forUndo`).
/// - Throws: `ShiplaneError` saying what stays when the key is not set here.
private func signingClient(_ context: EffectContext, api: String, what: String) throws -> AppStoreConnectClient {
    try AppStoreConnectStore.forUndo(api: api, in: context, staying: "\(what) stays").client
}

/// A signing certificate this run asked Apple for. Written down before the request with
/// `certificateID` nil and the public key's digest: a run killed before the answer finds the
/// certificate again by its key (the next run adopts it instead of making a second one; a
/// rollback revokes it).
package struct SigningCertificateCreated: Effect, Equatable {
    package static let kind = "match.certificateCreated"
    /// The API base URL.
    package var api: String
    package var certificateType: String
    /// The SHA-256 of the CSR's SubjectPublicKeyInfo (not secret: the key's public half).
    package var publicKeyDigest: String
    /// Apple's id, once it answered.
    package var certificateID: String?

    package init(api: String, certificateType: String, publicKeyDigest: String, certificateID: String? = nil) {
        self.api = api
        self.certificateType = certificateType
        self.publicKeyDigest = publicKeyDigest
        self.certificateID = certificateID
    }

    package var reach: EffectReach { .service }

    /// Revokes the certificate (by id, or the one of its type whose key is this run's); nothing
    /// when Apple never made it.
    package func undo(in context: EffectContext, status: RecordedEffect.Status) async throws {
        let client = try signingClient(context, api: api, what: "the \(certificateType) certificate")
        var id = certificateID
        if id == nil {
            id = try await client.certificates(types: [certificateType]).first { resource in
                resource.attributes?.certificateContent.flatMap { Data(base64Encoded: $0) }.flatMap(SigningCertificate.init(der:))?.publicKeyDigest == publicKeyDigest
            }?.id
        }
        guard let id else { return }
        try await client.revokeCertificate(id: id)
    }
}

/// A provisioning profile this run made. Written down before the request; found by its name
/// (match names each profile once per type and bundle ID) when the answer was lost.
package struct ProvisioningProfileCreated: Effect, Equatable {
    package static let kind = "match.profileCreated"
    package var api: String
    package var name: String
    package var profileType: String
    package var profileID: String?
    /// Profiles of that name that existed before the request (never deleted by the undo).
    package var earlierIDs: [String]

    package init(api: String, name: String, profileType: String, profileID: String? = nil, earlierIDs: [String] = []) {
        self.api = api
        self.name = name
        self.profileType = profileType
        self.profileID = profileID
        self.earlierIDs = earlierIDs
    }

    package var reach: EffectReach { .service }

    /// Deletes the profile (Apple allows it; the next match run makes it again).
    package func undo(in context: EffectContext, status: RecordedEffect.Status) async throws {
        let client = try signingClient(context, api: api, what: "the profile \(name)")
        var ids = profileID.map { [$0] } ?? []
        if ids.isEmpty {
            ids = try await client.profiles(type: profileType, name: name).map(\.id).filter { !earlierIDs.contains($0) }
        }
        for id in ids { try await client.deleteProfile(id: id) }
    }
}

/// A bundle ID this run registered; the undo deletes it (Apple allows it while no app uses it).
package struct BundleIDRegistered: Effect, Equatable {
    package static let kind = "match.bundleIDRegistered"
    package var api: String
    package var identifier: String
    package var bundleIDResourceID: String?

    package init(api: String, identifier: String, bundleIDResourceID: String? = nil) {
        self.api = api
        self.identifier = identifier
        self.bundleIDResourceID = bundleIDResourceID
    }

    package var reach: EffectReach { .service }

    package func undo(in context: EffectContext, status: RecordedEffect.Status) async throws {
        let client = try signingClient(context, api: api, what: "the bundle ID \(identifier)")
        var id = bundleIDResourceID
        if id == nil { id = try await client.bundleID(identifier: identifier)?.id }
        guard let id else { return }
        try await client.deleteBundleID(id: id)
    }
}

/// Something Apple does not take back: a device registered (Apple disables devices but never
/// deletes them, and the slot counts until the membership year ends), a certificate revoked, a
/// profile deleted by `nuke` or replaced by a regenerated one.
package struct SigningChangeStays: Effect, Equatable {
    package static let kind = "match.stays"
    /// What happened, for the record and the rollback's report.
    package var what: String

    package init(what: String) { self.what = what }

    package var reach: EffectReach { .permanent }

    package func undo(in context: EffectContext, status: RecordedEffect.Status) async throws {
        throw EffectStays("\(what): App Store Connect cannot take this back, so it stays")
    }
}
