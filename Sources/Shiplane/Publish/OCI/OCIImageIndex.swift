import Foundation

/// An OCI image index (a multi-architecture "manifest list"): one image manifest per platform, as
/// `docker pull` and `skopeo copy --all` read it. Canonical JSON, so the same images give the same digest.
package struct OCIImageIndex: Sendable {
    package static let mediaType = "application/vnd.oci.image.index.v1+json"

    package var bytes: [UInt8]
    package var digest: String

    struct Platform: Encodable {
        var architecture: String
        var os: String
        var variant: String?
    }

    struct Entry: Encodable {
        var mediaType: String
        var digest: String
        var size: Int64
        var platform: Platform
    }

    struct Document: Encodable {
        var schemaVersion: Int
        var mediaType: String
        var manifests: [Entry]
    }

    /// The index of `images`, each with the settings it was built with, in the order given.
    package init(_ images: [(image: OCIImage, settings: OCIImage.Settings)]) throws {
        let document = Document(schemaVersion: 2, mediaType: Self.mediaType, manifests: images.map { image, settings in
            Entry(mediaType: OCIImage.manifestMediaType, digest: image.manifestDigest, size: Int64(image.manifest.count),
                  platform: Platform(architecture: settings.architecture, os: settings.os, variant: settings.variant))
        })
        bytes = try OCIImage.canonicalJSON(document)
        digest = OCIImage.digest(of: bytes)
    }
}
