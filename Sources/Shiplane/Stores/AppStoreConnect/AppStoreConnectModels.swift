import Foundation

/// A JSON:API document with one resource or a list in `data`.
struct ASCDocument<Data: Decodable>: Decodable {
    var data: Data
}

/// One page of a JSON:API list, with the link to the next page when there is one.
struct ASCPage<Item: Decodable>: Decodable {
    struct Links: Decodable { var next: String? }
    var data: [Item]
    var links: Links?
}

/// A JSON:API resource: type, id, attributes and the relationships this client reads.
struct ASCResource<Attributes: Decodable>: Decodable {
    var type: String
    var id: String
    var attributes: Attributes?
    var relationships: [String: ASCRelationship]?

    /// The id of a to-one relationship, when the response carried its linkage.
    func relatedID(_ name: String) -> String? { relationships?[name]?.data?.id }
}

/// A to-one relationship's linkage (`{"data": {"type": ..., "id": ...}}`); lists and links-only
/// relationships decode with no linkage.
struct ASCRelationship: Decodable {
    struct Linkage: Decodable { var type: String; var id: String }
    var data: Linkage?

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        data = try? container.decodeIfPresent(Linkage.self, forKey: .data)
    }

    private enum CodingKeys: String, CodingKey { case data }
}

struct ASCApp: Decodable { var bundleId: String?; var name: String? }

/// One of Apple's import errors, warnings or notes on a build upload.
struct ASCStateDetail: Decodable {
    var code: String?
    var message: String?
    var description: String?

    var text: String { [code, message ?? description].compactMap { $0 }.joined(separator: ": ") }
}

/// A build upload's or a file's state with Apple's errors and warnings.
struct ASCDeliveryState: Decodable {
    var state: String?
    var errors: [ASCStateDetail]?
    var warnings: [ASCStateDetail]?
    var infos: [ASCStateDetail]?
}

struct ASCBuildUpload: Decodable {
    var cfBundleShortVersionString: String?
    var cfBundleVersion: String?
    var platform: String?
    var state: ASCDeliveryState?
}

/// An HTTP request Apple asks for to upload one part of a file, performed exactly as given.
package struct ASCUploadOperation: Decodable, Sendable, Equatable {
    /// A header Apple asks to be sent with the part.
    package struct Header: Decodable, Sendable, Equatable { /** The header's name. */ public var name: String; /** Its value. */ public var value: String }
    /// The HTTP method Apple asks for.
    package var method: String
    /// Where the part goes.
    package var url: String
    /// Where the part starts in the file, in bytes.
    package var offset: Int64
    /// The part's length in bytes.
    package var length: Int64
    /// The headers to send, when Apple lists any.
    package var requestHeaders: [Header]?
    /// Until when the URL can be used, as Apple gives it.
    package var expiration: String?
    /// The part's number, when Apple gives one.
    package var partNumber: Int?
}

struct ASCBuildUploadFile: Decodable {
    var fileName: String?
    var fileSize: Int64?
    var uploadOperations: [ASCUploadOperation]?
    var assetDeliveryState: ASCDeliveryState?
}

struct ASCBuild: Decodable {
    var version: String?
    var processingState: String?
    var expired: Bool?
    var usesNonExemptEncryption: Bool?
}

/// An App Store version: the version string, platform and state.
struct ASCAppStoreVersion: Decodable {
    var versionString: String?; var platform: String?; var appVersionState: String?
    var appStoreState: String?; var releaseType: String?; var earliestReleaseDate: String?
}

/// An app info (the app's name and subtitle per locale live under it), with its state.
struct ASCAppInfo: Decodable { var state: String? }

/// A build's submission for external beta review.
struct ASCBetaAppReviewSubmission: Decodable { var betaReviewState: String? }

struct ASCBetaGroup: Decodable { var name: String?; var isInternalGroup: Bool? }

struct ASCBetaBuildLocalization: Decodable { var locale: String?; var whatsNew: String? }

/// Apple's error body: `{"errors": [{"status", "code", "title", "detail"}]}`.
struct ASCErrorBody: Decodable {
    struct Item: Decodable { var status: String?; var code: String?; var title: String?; var detail: String? }
    var errors: [Item]?
}

/// A build on App Store Connect, as `uploadToTestFlight` returns it.
public struct TestFlightBuild: Sendable, Equatable, Codable, CustomStringConvertible {
    /// The build's App Store Connect id (or a placeholder in a dry run without a build).
    public var id: String
    /// The app's App Store Connect id.
    public var appID: String
    /// The bundle ID, from the IPA.
    public var bundleID: String
    /// `CFBundleShortVersionString`, from the IPA.
    public var version: String
    /// `CFBundleVersion`, from the IPA.
    public var buildNumber: String
    /// Apple's processing state: VALID once testers can get it.
    public var processingState: String

    /// Bundle ID, version, build number and processing state.
    public var description: String { "\(bundleID) \(version) (\(buildNumber)) [\(processingState)]" }
}

/// Replayed on resume from the run's record.
extension TestFlightBuild: ReplayableOutput {}
