import Foundation
internal import Crypto

/// An SPDX 2.3 JSON document (https://spdx.github.io/spdx-spec/v2.3/) for a `SoftwareBill`: the
/// project and the files the release ships as packages the document describes, each locked
/// package with its package URL and checksums, and `DEPENDS_ON` / `DEV_DEPENDENCY_OF`
/// relationships. Deterministic as the CycloneDX document is: the namespace is derived from the
/// content.
package enum SPDXDocument {
    /// The document's bytes: pretty-printed JSON with a final newline.
    package static func encode(_ bill: SoftwareBill, tool: String = ShiplaneVersion.current) throws -> Data {
        let projectID = "SPDXRef-Project"
        var packages: [Package] = [Package(
            spdxID: projectID, name: bill.projectName, versionInfo: bill.projectVersion, primaryPackagePurpose: "APPLICATION"
        )]
        var relationships: [Relationship] = [Relationship(spdxElementId: "SPDXRef-DOCUMENT", relationshipType: "DESCRIBES", relatedSpdxElement: projectID)]
        for file in bill.files {
            let id = identifier("File", file.name)
            packages.append(Package(
                spdxID: id, name: file.name, primaryPackagePurpose: "FILE",
                checksums: [Checksum(algorithm: "SHA256", checksumValue: file.sha256)]
            ))
            relationships.append(Relationship(spdxElementId: "SPDXRef-DOCUMENT", relationshipType: "DESCRIBES", relatedSpdxElement: id))
        }
        for item in bill.components {
            let package = item.package
            packages.append(Package(
                spdxID: identifier("Package", package.purl.description),
                name: package.purl.namespace.map { $0 + "/" + package.purl.name } ?? package.purl.name,
                versionInfo: package.purl.version, downloadLocation: package.downloadURL ?? package.vcsURL.map { "git+" + CycloneDXDocument.uri(ofRepository: $0) } ?? "NOASSERTION",
                primaryPackagePurpose: "LIBRARY",
                checksums: package.hashes.isEmpty ? nil : package.hashes.map { Checksum(algorithm: $0.algorithm.spdxName, checksumValue: $0.hex) },
                externalRefs: [ExternalRef(referenceCategory: "PACKAGE-MANAGER", referenceType: "purl", referenceLocator: package.purl.description)],
                comment: "locked in " + item.lockFiles.joined(separator: ", ")
            ))
        }
        let development = Set(bill.components.filter(\.package.isDevelopment).map(\.package.purl))
        for purl in bill.direct {
            if development.contains(purl) {
                relationships.append(Relationship(spdxElementId: identifier("Package", purl.description), relationshipType: "DEV_DEPENDENCY_OF", relatedSpdxElement: projectID))
            } else {
                relationships.append(Relationship(spdxElementId: projectID, relationshipType: "DEPENDS_ON", relatedSpdxElement: identifier("Package", purl.description)))
            }
        }
        for item in bill.components {
            for dependency in item.package.dependencies ?? [] {
                relationships.append(Relationship(
                    spdxElementId: identifier("Package", item.package.purl.description), relationshipType: "DEPENDS_ON",
                    relatedSpdxElement: identifier("Package", dependency.description)
                ))
            }
        }
        let name = bill.projectName + (bill.projectVersion.map { "-" + $0 } ?? "")
        var document = Document(
            name: name, documentNamespace: "",
            creationInfo: CreationInfo(created: RunStore.iso8601(bill.timestamp), creators: ["Tool: shiplane-\(tool)"]),
            packages: packages, relationships: relationships
        )
        let unnamed = try write(document)
        document.documentNamespace = "https://spdx.org/spdxdocs/\(PackageURL.encode(name))-\(CycloneDXDocument.contentUUID(of: unnamed))"
        return try write(document)
    }

    /// `SPDXRef-<kind>-<16 hex digits of the SHA-256 of the key>`: stable and within SPDX's `[A-Za-z0-9.-]`.
    static func identifier(_ kind: String, _ key: String) -> String {
        "SPDXRef-\(kind)-" + String(Data(Crypto.SHA256.hash(data: Data(key.utf8))).hexadecimal.prefix(16))
    }

    private static func write(_ document: Document) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(document) + Data("\n".utf8)
    }

    // MARK: - The schema's shapes

    private struct Document: Encodable {
        var spdxVersion = "SPDX-2.3"
        var dataLicense = "CC0-1.0"
        var spdxID = "SPDXRef-DOCUMENT"
        var name: String
        var documentNamespace: String
        var creationInfo: CreationInfo
        var packages: [Package]
        var relationships: [Relationship]

        enum CodingKeys: String, CodingKey {
            case spdxVersion, dataLicense, spdxID = "SPDXID", name, documentNamespace, creationInfo, packages, relationships
        }
    }

    private struct CreationInfo: Encodable {
        var created: String
        var creators: [String]
    }

    private struct Package: Encodable {
        var spdxID: String
        var name: String
        var versionInfo: String?
        var downloadLocation = "NOASSERTION"
        var filesAnalyzed = false
        var primaryPackagePurpose: String
        var checksums: [Checksum]?
        var externalRefs: [ExternalRef]?
        var comment: String?

        enum CodingKeys: String, CodingKey {
            case spdxID = "SPDXID", name, versionInfo, downloadLocation, filesAnalyzed, primaryPackagePurpose, checksums, externalRefs, comment
        }
    }

    private struct Checksum: Encodable {
        var algorithm: String
        var checksumValue: String
    }

    private struct ExternalRef: Encodable {
        var referenceCategory: String
        var referenceType: String
        var referenceLocator: String
    }

    private struct Relationship: Encodable {
        var spdxElementId: String
        var relationshipType: String
        var relatedSpdxElement: String
    }
}
