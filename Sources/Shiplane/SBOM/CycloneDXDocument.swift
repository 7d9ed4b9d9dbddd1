import Foundation
internal import Crypto

/// A CycloneDX 1.6 JSON document (https://cyclonedx.org/docs/1.6/json/) for a `SoftwareBill`.
///
/// The same bill gives the same bytes: members sorted, components and dependencies sorted by
/// package URL, the time from the bill, and a serial number derived from the content (a UUID
/// version 5 of the SHA-256 of the document written without it), never a random one.
package enum CycloneDXDocument {
    /// The document's bytes: pretty-printed JSON with a final newline.
    package static func encode(_ bill: SoftwareBill, tool: String = ShiplaneVersion.current) throws -> Data {
        var document = Document(
            serialNumber: nil,
            metadata: Metadata(
                timestamp: RunStore.iso8601(bill.timestamp),
                tools: Tools(components: [ToolComponent(type: "application", name: "shiplane", version: tool)]),
                component: Component(type: "application", bomRef: projectRef(bill), name: bill.projectName, version: bill.projectVersion)
            ),
            components: [],
            dependencies: []
        )
        for item in bill.components {
            let package = item.package
            let purl = package.purl
            var external: [ExternalReference] = []
            if let vcs = package.vcsURL { external.append(ExternalReference(type: "vcs", url: uri(ofRepository: vcs))) }
            if let download = package.downloadURL { external.append(ExternalReference(type: "distribution", url: download)) }
            var properties = item.lockFiles.map { Property(name: "shiplane:lockfile", value: $0) }
            if package.isDevelopment { properties.append(Property(name: "shiplane:development", value: "true")) }
            document.components.append(Component(
                type: "library", bomRef: purl.description, name: componentName(purl), group: componentGroup(purl),
                version: purl.version, purl: purl.description,
                hashes: package.hashes.isEmpty ? nil : package.hashes.map { Hash(alg: $0.algorithm.rawValue, content: $0.hex) },
                externalReferences: external.isEmpty ? nil : external, properties: properties.isEmpty ? nil : properties
            ))
        }
        for file in bill.files {
            document.components.append(Component(type: "file", bomRef: "file:" + file.name, name: file.name, hashes: [Hash(alg: "SHA-256", content: file.sha256)]))
        }
        document.dependencies.append(Dependency(ref: projectRef(bill), dependsOn: bill.direct.map(\.description)))
        for item in bill.components {
            guard let dependencies = item.package.dependencies else { continue }
            document.dependencies.append(Dependency(ref: item.package.purl.description, dependsOn: dependencies.map(\.description)))
        }
        let unsigned = try write(document)
        document.serialNumber = "urn:uuid:" + contentUUID(of: unsigned)
        return try write(document)
    }

    /// A repository location as a URI: scp-style `git@host:owner/name.git` becomes `ssh://git@host/owner/name.git`.
    static func uri(ofRepository location: String) -> String {
        guard !location.contains("://"), let at = location.firstIndex(of: "@"), let colon = location.firstIndex(of: ":"), at < colon else { return location }
        return "ssh://" + location[..<colon] + "/" + location[location.index(after: colon)...]
    }

    private static func projectRef(_ bill: SoftwareBill) -> String {
        "project:" + bill.projectName + (bill.projectVersion.map { "@" + $0 } ?? "")
    }

    /// A Maven artifact's, an npm scope's or a Go module's group is the namespace; for Swift, the
    /// repository host and owner (`github.com/apple`).
    private static func componentGroup(_ purl: PackageURL) -> String? { purl.namespace }

    private static func componentName(_ purl: PackageURL) -> String {
        purl.subpath.map { purl.name + "/" + $0 } ?? purl.name
    }

    private static func write(_ document: Document) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(document) + Data("\n".utf8)
    }

    /// A name-based UUID (version 5, RFC 9562) of the SHA-256 of `data`, in the URL namespace.
    static func contentUUID(of data: Data) -> String {
        let digest = Data(Crypto.SHA256.hash(data: data)).hexadecimal
        let namespace: [UInt8] = [0x6b, 0xa7, 0xb8, 0x11, 0x9d, 0xad, 0x11, 0xd1, 0x80, 0xb4, 0x00, 0xc0, 0x4f, 0xd4, 0x30, 0xc8]
        var bytes = Array(Insecure.SHA1.hash(data: Data(namespace) + Data(("shiplane-sbom:" + digest).utf8)).prefix(16))
        bytes[6] = (bytes[6] & 0x0F) | 0x50
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        let hex = Data(bytes).hexadecimal
        let characters = Array(hex)
        return [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(characters[$0]) }.joined(separator: "-")
    }

    // MARK: - The schema's shapes

    private struct Document: Encodable {
        var bomFormat = "CycloneDX"
        var specVersion = "1.6"
        var serialNumber: String?
        var version = 1
        var metadata: Metadata
        var components: [Component]
        var dependencies: [Dependency]
    }

    private struct Metadata: Encodable {
        var timestamp: String
        var tools: Tools
        var component: Component
    }

    private struct Tools: Encodable { var components: [ToolComponent] }

    private struct ToolComponent: Encodable {
        var type: String
        var name: String
        var version: String
    }

    private struct Component: Encodable {
        var type: String
        var bomRef: String
        var name: String
        var group: String?
        var version: String?
        var purl: String?
        var hashes: [Hash]?
        var externalReferences: [ExternalReference]?
        var properties: [Property]?

        enum CodingKeys: String, CodingKey {
            case type, bomRef = "bom-ref", name, group, version, purl, hashes, externalReferences, properties
        }
    }

    private struct Hash: Encodable {
        var alg: String
        var content: String
    }

    private struct ExternalReference: Encodable {
        var type: String
        var url: String
    }

    private struct Property: Encodable {
        var name: String
        var value: String
    }

    private struct Dependency: Encodable {
        var ref: String
        var dependsOn: [String]
    }
}
