import Foundation

struct ASCCertificate: Decodable {
    var name: String?
    var certificateType: String?
    var displayName: String?
    var serialNumber: String?
    var expirationDate: String?
    var certificateContent: String?
}

struct ASCProfile: Decodable {
    var name: String?
    var platform: String?
    var profileType: String?
    var profileState: String?
    var profileContent: String?
    var uuid: String?
    var expirationDate: String?
}

struct ASCBundleID: Decodable {
    var name: String?
    var platform: String?
    var identifier: String?
    var seedId: String?
}

struct ASCDevice: Decodable {
    var name: String?
    var platform: String?
    var udid: String?
    var deviceClass: String?
    var status: String?
}

/// A linkage in a to-many relationship list (`/v1/profiles/{id}/relationships/devices`).
struct ASCLinkage: Decodable { var type: String; var id: String }

/// The App Store Connect resources match works with: certificates, bundle IDs, devices and
/// provisioning profiles (the paths, filters and bodies of Apple's published description).
extension AppStoreConnectClient {
    typealias CertificateResource = ASCResource<ASCCertificate>
    typealias ProfileResource = ASCResource<ASCProfile>
    typealias BundleIDResource = ASCResource<ASCBundleID>
    typealias DeviceResource = ASCResource<ASCDevice>

    // MARK: - Certificates

    /// The team's certificates of these types, every page.
    func certificates(types: [String]) async throws -> [CertificateResource] {
        try await getAll("/v1/certificates", query: [("filter[certificateType]", types.joined(separator: ",")), ("limit", "200")],
                         as: CertificateResource.self, operation: "list the \(types.joined(separator: "/")) certificates")
    }

    /// Asks Apple for a certificate of `type` for the CSR (PEM text).
    func createCertificate(type: String, csrPEM: String) async throws -> CertificateResource {
        let body: [String: Any] = ["data": ["type": "certificates", "attributes": ["certificateType": type, "csrContent": csrPEM]]]
        return try await send(.post, "/v1/certificates", body: body, as: ASCDocument<CertificateResource>.self,
                              operation: "create a \(type) certificate").data
    }

    /// Revokes a certificate (Apple's DELETE); a certificate already gone (404) counts as revoked.
    func revokeCertificate(id: String) async throws {
        _ = try await perform(.delete, "/v1/certificates/\(id)", operation: "revoke certificate \(id)", accepting: [404])
    }

    // MARK: - Bundle IDs

    /// The bundle ID registered as exactly `identifier` (Apple's filter also matches prefixes).
    func bundleID(identifier: String) async throws -> BundleIDResource? {
        let found = try await getAll("/v1/bundleIds", query: [("filter[identifier]", identifier), ("limit", "200")],
                                     as: BundleIDResource.self, operation: "look up the bundle ID \(identifier)")
        return found.first { $0.attributes?.identifier == identifier }
    }

    func registerBundleID(identifier: String, name: String, platform: String) async throws -> BundleIDResource {
        let body: [String: Any] = ["data": ["type": "bundleIds", "attributes": ["identifier": identifier, "name": name, "platform": platform]]]
        return try await send(.post, "/v1/bundleIds", body: body, as: ASCDocument<BundleIDResource>.self,
                              operation: "register the bundle ID \(identifier)").data
    }

    func deleteBundleID(id: String) async throws {
        _ = try await perform(.delete, "/v1/bundleIds/\(id)", operation: "delete bundle ID \(id)", accepting: [404])
    }

    // MARK: - Devices

    /// The team's enabled devices of `platform` (IOS or MAC_OS).
    func enabledDevices(platform: String) async throws -> [DeviceResource] {
        try await getAll("/v1/devices", query: [("filter[platform]", platform), ("filter[status]", "ENABLED"), ("limit", "200")],
                         as: DeviceResource.self, operation: "list the \(platform) devices")
    }

    func registerDevice(name: String, udid: String, platform: String) async throws -> DeviceResource {
        let body: [String: Any] = ["data": ["type": "devices", "attributes": ["name": name, "udid": udid, "platform": platform]]]
        return try await send(.post, "/v1/devices", body: body, as: ASCDocument<DeviceResource>.self,
                              operation: "register the device \(name)").data
    }

    // MARK: - Profiles

    /// The profiles of `type` named `name`, every page.
    func profiles(type: String, name: String? = nil) async throws -> [ProfileResource] {
        var query = [("filter[profileType]", type), ("limit", "200")]
        if let name { query.insert(("filter[name]", name), at: 0) }
        let found = try await getAll("/v1/profiles", query: query, as: ProfileResource.self, operation: "list the \(type) profiles")
        return found.filter { name == nil || $0.attributes?.name == name }
    }

    /// The ids of a profile's devices or certificates (`relationship`: `devices`, `certificates`).
    func profileLinks(_ id: String, _ relationship: String) async throws -> [String] {
        try await getAll("/v1/profiles/\(id)/relationships/\(relationship)", query: [("limit", "200")], as: ASCLinkage.self,
                         operation: "read the \(relationship) of profile \(id)").map(\.id)
    }

    func createProfile(name: String, type: String, bundleID: String, certificates: [String], devices: [String]?) async throws -> ProfileResource {
        var relationships: [String: Any] = [
            "bundleId": ["data": ["type": "bundleIds", "id": bundleID]],
            "certificates": ["data": certificates.map { ["type": "certificates", "id": $0] }],
        ]
        if let devices { relationships["devices"] = ["data": devices.map { ["type": "devices", "id": $0] }] }
        let body: [String: Any] = ["data": ["type": "profiles", "attributes": ["name": name, "profileType": type], "relationships": relationships]]
        return try await send(.post, "/v1/profiles", body: body, as: ASCDocument<ProfileResource>.self,
                              operation: "create the profile \(name)").data
    }

    /// Deletes a profile; one already gone (404) counts as deleted.
    func deleteProfile(id: String) async throws {
        _ = try await perform(.delete, "/v1/profiles/\(id)", operation: "delete profile \(id)", accepting: [404])
    }

    /// A date as App Store Connect writes it (`2027-01-31T12:00:00.000+0000` or ISO 8601).
    static func date(_ text: String?) -> Date? {
        guard let text else { return nil }
        let plain = ISO8601DateFormatter()
        if let date = plain.date(from: text) { return date }
        let fractional = ISO8601DateFormatter()
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = fractional.date(from: text) { return date }
        // Apple's own form: `2027-01-31T12:00:00.000+0000` (no colon in the offset).
        let apple = DateFormatter()
        apple.locale = Locale(identifier: "en_US_POSIX")
        apple.dateFormat = "yyyy-MM-dd'T'HH:mm:ss.SSSZ"
        return apple.date(from: text)
    }
}
