import Foundation
import Hummingbird

/// The team's certificates, bundle IDs, devices and profiles in the App Store Connect stand-in.
struct FakeSigningState {
    struct Certificate { var type: String; var der: Data; var expires: Date; var serial: String }
    struct BundleID { var identifier: String; var name: String; var platform: String }
    struct Device { var name: String; var udid: String; var platform: String; var deviceClass: String; var status = "ENABLED" }
    struct Profile {
        var name: String; var type: String; var bundleID: String; var certificates: [String]; var devices: [String]
        var state = "ACTIVE"; var uuid: String; var expires: Date; var content: Data
    }

    var certificates: [String: Certificate] = [:]
    var bundleIDs: [String: BundleID] = [:]
    var devices: [String: Device] = [:]
    var profiles: [String: Profile] = [:]
    /// Certificates revoked and profiles deleted, by id, in order.
    var revoked: [String] = []
    var deletedProfiles: [String] = []
    /// Days a new certificate is valid (Apple: a year).
    var certificateDays = 365
    /// Apple's limit of certificates per type (a 409 beyond it, as Apple refuses a third distribution certificate).
    var certificateLimit = 2
    /// The team id put in certificates and profiles.
    var teamID = "TEAM123456"
    /// The stand-in's certificate authority (made with openssl on first use).
    var authority: (certificate: String, key: String)?
}

/// Routes of Apple's provisioning resources (called under `lock`).
extension FakeAppStoreConnect {
    func signingRoute(_ method: String, _ segments: [String], _ query: [String: String], _ body: [UInt8]) -> Response? {
        guard segments.count >= 2, segments[0] == "v1", ["certificates", "bundleIds", "devices", "profiles"].contains(segments[1]) else { return nil }
        let object = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any]
        let data = object?["data"] as? [String: Any]
        let attributes = data?["attributes"] as? [String: Any] ?? [:]
        func listed(_ name: String, _ value: String?) -> Bool {
            guard let wanted = query[name] else { return true }
            return value.map { wanted.split(separator: ",").map(String.init).contains($0) } ?? false
        }
        switch (method, segments.count, segments[1]) {
        case ("GET", 2, "certificates"):
            let items = signing.certificates.filter { listed("filter[certificateType]", $0.value.type) }.sorted { $0.key < $1.key }
            return reply(200, ["data": items.map { certificateJSON($0.key, $0.value) }])
        case ("POST", 2, "certificates"):
            guard let type = attributes["certificateType"] as? String, let csr = attributes["csrContent"] as? String else {
                return error(409, "ENTITY_ERROR", "The request entity is invalid", "csrContent and certificateType are required")
            }
            if signing.certificates.values.filter({ $0.type == type }).count >= signing.certificateLimit {
                return error(409, "ENTITY_ERROR", "There is a problem with the request entity",
                             "You already have a current \(type) certificate or a pending certificate request.")
            }
            switch issueCertificate(csr: csr, type: type) {
            case .failure(let refusal): return error(409, "ENTITY_ERROR.ATTRIBUTE.INVALID", "An attribute value is invalid.", refusal.detail)
            case .success(let certificate):
                let id = newID("CERT")
                signing.certificates[id] = certificate
                return reply(201, ["data": certificateJSON(id, certificate)])
            }
        case ("DELETE", 3, "certificates"):
            guard signing.certificates.removeValue(forKey: segments[2]) != nil else { return notFound("certificates", segments[2]) }
            signing.revoked.append(segments[2])
            return replyEmpty(204)
        case ("GET", 2, "bundleIds"):
            let items = signing.bundleIDs.filter { listed("filter[identifier]", $0.value.identifier) }.sorted { $0.key < $1.key }
            return reply(200, ["data": items.map { bundleIDJSON($0.key, $0.value) }])
        case ("POST", 2, "bundleIds"):
            guard let identifier = attributes["identifier"] as? String, let name = attributes["name"] as? String, let platform = attributes["platform"] as? String else {
                return error(409, "ENTITY_ERROR", "The request entity is invalid", "identifier, name and platform are required")
            }
            if name.contains(where: { !($0.isLetter || $0.isNumber || $0 == " ") }) {
                return error(409, "ENTITY_ERROR.ATTRIBUTE.INVALID", "An attribute value is invalid.", "The name can only contain letters, numbers and spaces")
            }
            if signing.bundleIDs.values.contains(where: { $0.identifier == identifier }) {
                return error(409, "ENTITY_ERROR.ATTRIBUTE.INVALID", "An attribute value is invalid.", "An App ID with Identifier '\(identifier)' is not available.")
            }
            let id = newID("BUNDLE")
            signing.bundleIDs[id] = .init(identifier: identifier, name: name, platform: platform)
            return reply(201, ["data": bundleIDJSON(id, signing.bundleIDs[id] ?? .init(identifier: "", name: "", platform: ""))])
        case ("DELETE", 3, "bundleIds"):
            guard signing.bundleIDs.removeValue(forKey: segments[2]) != nil else { return notFound("bundleIds", segments[2]) }
            return replyEmpty(204)
        case ("GET", 2, "devices"):
            let items = signing.devices.filter { listed("filter[platform]", $0.value.platform) && listed("filter[status]", $0.value.status) }.sorted { $0.key < $1.key }
            return reply(200, ["data": items.map { deviceJSON($0.key, $0.value) }])
        case ("POST", 2, "devices"):
            guard let name = attributes["name"] as? String, let udid = attributes["udid"] as? String, let platform = attributes["platform"] as? String else {
                return error(409, "ENTITY_ERROR", "The request entity is invalid", "name, udid and platform are required")
            }
            let id = newID("DEVICE")
            signing.devices[id] = .init(name: name, udid: udid, platform: platform, deviceClass: platform == "MAC_OS" ? "MAC" : "IPHONE")
            return reply(201, ["data": deviceJSON(id, signing.devices[id] ?? .init(name: "", udid: "", platform: "", deviceClass: ""))])
        case ("GET", 2, "profiles"):
            let items = signing.profiles.filter { listed("filter[profileType]", $0.value.type) && listed("filter[name]", $0.value.name) }.sorted { $0.key < $1.key }
            return reply(200, ["data": items.map { profileJSON($0.key, $0.value) }])
        case ("GET", 5, "profiles") where segments[3] == "relationships":
            guard let profile = signing.profiles[segments[2]] else { return notFound("profiles", segments[2]) }
            let ids = segments[4] == "devices" ? profile.devices : profile.certificates
            return reply(200, ["data": ids.map { ["type": segments[4], "id": $0] }])
        case ("POST", 2, "profiles"):
            return createProfile(data)
        case ("DELETE", 3, "profiles"):
            guard signing.profiles.removeValue(forKey: segments[2]) != nil else { return notFound("profiles", segments[2]) }
            signing.deletedProfiles.append(segments[2])
            return replyEmpty(204)
        default:
            return nil
        }
    }

    private func createProfile(_ data: [String: Any]?) -> Response {
        let attributes = data?["attributes"] as? [String: Any] ?? [:]
        let relationships = data?["relationships"] as? [String: Any] ?? [:]
        func ids(_ name: String) -> [String] {
            ((relationships[name] as? [String: Any])?["data"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
        }
        guard let name = attributes["name"] as? String, let type = attributes["profileType"] as? String,
              let bundle = ((relationships["bundleId"] as? [String: Any])?["data"] as? [String: Any])?["id"] as? String else {
            return error(409, "ENTITY_ERROR", "The request entity is invalid", "name, profileType and bundleId are required")
        }
        guard signing.bundleIDs[bundle] != nil else { return error(409, "ENTITY_ERROR.RELATIONSHIP.INVALID", "The relationship is invalid", "no bundle ID \(bundle)") }
        let certificates = ids("certificates"), devices = ids("devices")
        if let missing = certificates.first(where: { signing.certificates[$0] == nil }) {
            return error(409, "ENTITY_ERROR.RELATIONSHIP.INVALID", "The relationship is invalid", "no certificate \(missing)")
        }
        if (type.hasSuffix("DEVELOPMENT") || type.hasSuffix("ADHOC")) && devices.isEmpty {
            return error(409, "ENTITY_ERROR.RELATIONSHIP.INVALID", "The relationship is invalid", "a \(type) profile needs devices")
        }
        if signing.profiles.values.contains(where: { $0.name == name }) {
            return error(409, "ENTITY_ERROR.ATTRIBUTE.INVALID", "An attribute value is invalid.", "Multiple profiles found with the name '\(name)'. Please remove the duplicate profiles and try again.")
        }
        let uuid = UUID().uuidString
        let expires = Date().addingTimeInterval(Double(signing.certificateDays) * 86_400).rounded()
        let plist: [String: Any] = [
            "Name": name, "UUID": uuid, "TeamIdentifier": [signing.teamID], "ExpirationDate": expires,
            "ProvisionedDevices": devices.compactMap { signing.devices[$0]?.udid },
            "DeveloperCertificates": certificates.compactMap { signing.certificates[$0]?.der },
        ]
        let xml = (try? PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0)) ?? Data()
        // A plist inside a DER wrapper, as a profile's CMS holds it (the stand-in does not sign it).
        let content = Data([0x30, 0x80, 0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x02]) + xml + Data([0x00, 0x00])
        let id = newID("PROFILE")
        signing.profiles[id] = .init(name: name, type: type, bundleID: bundle, certificates: certificates, devices: devices, uuid: uuid, expires: expires, content: content)
        return reply(201, ["data": profileJSON(id, signing.profiles[id] ?? .init(name: "", type: "", bundleID: "", certificates: [], devices: [], uuid: "", expires: Date(), content: Data()))])
    }

    /// Checks the CSR with `openssl req -verify` and issues a certificate for its key from the
    /// stand-in's authority, with Apple's subject (`Apple Distribution: …`, OU the team).
    private func issueCertificate(csr: String, type: String) -> Result<FakeSigningState.Certificate, SigningRefusal> {
        let folder = storageFolder + "/signing-\(nextID)"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            if signing.authority == nil {
                let made = try runTool(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", storageFolder + "/ca.key",
                                        "-out", storageFolder + "/ca.pem", "-days", "3650", "-subj", "/CN=Stand-in Apple WWDR/O=Test"])
                guard made.status == 0 else { return .failure(SigningRefusal(detail: "the stand-in's authority: \(made.output)")) }
                signing.authority = (storageFolder + "/ca.pem", storageFolder + "/ca.key")
            }
            try Data(csr.utf8).write(to: URL(fileURLWithPath: folder + "/request.csr"))
            let verified = try runTool(["openssl", "req", "-in", folder + "/request.csr", "-verify", "-noout"])
            guard verified.status == 0 else { return .failure(SigningRefusal(detail: "the CSR does not verify: \(verified.output)")) }
            let keyText = try runTool(["openssl", "req", "-in", folder + "/request.csr", "-noout", "-text"])
            guard keyText.output.contains("Public-Key: (2048 bit)"), keyText.output.contains("sha256WithRSAEncryption") else {
                return .failure(SigningRefusal(detail: "the CSR must hold an RSA 2048 key signed with SHA-256"))
            }
            let kind = type.contains("DEVELOPMENT") ? "Apple Development" : type.hasPrefix("DEVELOPER_ID") ? "Developer ID Application" : "Apple Distribution"
            let serial = String(format: "%016llX", UInt64.random(in: 1...UInt64.max / 2))
            guard let authority = signing.authority else { return .failure(SigningRefusal(detail: "no authority")) }
            let issued = try runTool([
                "openssl", "x509", "-req", "-in", folder + "/request.csr", "-CA", authority.certificate, "-CAkey", authority.key,
                "-set_serial", "0x" + serial, "-days", String(signing.certificateDays), "-outform", "DER", "-out", folder + "/cert.der",
                "-subj", "/UID=\(signing.teamID)/CN=\(kind): Acme Inc (\(signing.teamID))/OU=\(signing.teamID)/O=Acme Inc/C=US",
            ])
            guard issued.status == 0, let der = FileManager.default.contents(atPath: folder + "/cert.der") else { return .failure(SigningRefusal(detail: "openssl x509: \(issued.output)")) }
            let expires = Date().addingTimeInterval(Double(signing.certificateDays) * 86_400)
            return .success(.init(type: type, der: der, expires: expires, serial: serial))
        } catch {
            return .failure(SigningRefusal(detail: "\(error)"))
        }
    }

    private static func appleDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ss.SSSZ"
        return formatter.string(from: date)
    }

    private func certificateJSON(_ id: String, _ certificate: FakeSigningState.Certificate) -> [String: Any] {
        ["type": "certificates", "id": id, "attributes": [
            "name": certificate.type, "certificateType": certificate.type, "displayName": "Acme Inc", "serialNumber": certificate.serial,
            "platform": "IOS", "expirationDate": Self.appleDate(certificate.expires), "certificateContent": certificate.der.base64EncodedString(),
            "activated": true,
        ] as [String: Any]]
    }

    private func bundleIDJSON(_ id: String, _ bundle: FakeSigningState.BundleID) -> [String: Any] {
        ["type": "bundleIds", "id": id, "attributes": ["name": bundle.name, "identifier": bundle.identifier, "platform": bundle.platform, "seedId": signing.teamID]]
    }

    private func deviceJSON(_ id: String, _ device: FakeSigningState.Device) -> [String: Any] {
        ["type": "devices", "id": id, "attributes": ["name": device.name, "udid": device.udid, "platform": device.platform,
                                                      "deviceClass": device.deviceClass, "status": device.status, "model": "iPhone"]]
    }

    private func profileJSON(_ id: String, _ profile: FakeSigningState.Profile) -> [String: Any] {
        let platform = profile.type.hasPrefix("MAC") ? "MAC_OS" : "IOS"
        return ["type": "profiles", "id": id, "attributes": [
            "name": profile.name, "platform": platform, "profileType": profile.type, "profileState": profile.state,
            "profileContent": profile.content.base64EncodedString(), "uuid": profile.uuid,
            "createdDate": Self.appleDate(Date()), "expirationDate": Self.appleDate(profile.expires),
        ] as [String: Any]]
    }
}

/// Why the stand-in refused a certificate request.
struct SigningRefusal: Error { var detail: String }

private extension Date {
    /// To the second (a property list keeps no fractions).
    func rounded() -> Date { Date(timeIntervalSince1970: timeIntervalSince1970.rounded(.down)) }
}
