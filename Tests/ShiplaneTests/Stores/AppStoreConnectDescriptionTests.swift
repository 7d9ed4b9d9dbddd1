import Foundation
import Testing
@testable import Shiplane

/// The checker the App Store Connect stand-in runs every request and answer through, held to
/// Apple's published description (OpenAPI 4.4.1, a committed fixture).
@Suite("The App Store Connect stand-in is checked against Apple's published API description", .offThePool)
struct AppStoreConnectDescriptionTests {
    let spec: OpenAPIDescription

    init() throws {
        spec = try #require(OpenAPIDescription.appStoreConnect, "Tests/ShiplaneTests/Fixtures/Specs/app_store_connect_api-4.4.1.json cannot be read")
    }

    func body(_ object: [String: Any]) throws -> [UInt8] {
        Array(try JSONSerialization.data(withJSONObject: object))
    }

    @Test func declaredFiltersAreAcceptedAndUndeclaredOnesRefused() {
        let (operation, fine) = spec.check(method: "GET", path: "/v1/builds", query: [
            "filter[app]": "app-1", "filter[version]": "42", "filter[preReleaseVersion.version]": "1.4.0",
            "filter[preReleaseVersion.platform]": "IOS", "limit": "200",
        ], body: [])
        #expect(operation?.template == "/v1/builds")
        #expect(fine.isEmpty, "\(fine)")
        let (_, uploads) = spec.check(method: "GET", path: "/v1/apps/app-1/buildUploads", query: [
            "filter[cfBundleShortVersionString]": "1.4.0", "filter[cfBundleVersion]": "42", "filter[platform]": "IOS",
            "filter[state]": "AWAITING_UPLOAD,PROCESSING", "limit": "200",
        ], body: [])
        #expect(uploads.isEmpty, "\(uploads)")
        let (_, unknown) = spec.check(method: "GET", path: "/v1/builds", query: ["filter[bundleId]": "x"], body: [])
        #expect(unknown == ["GET /v1/builds: query parameter filter[bundleId] is not declared"])
        let (_, badEnum) = spec.check(method: "GET", path: "/v1/apps/app-1/buildUploads", query: ["filter[platform]": "ANDROID"], body: [])
        #expect(badEnum.count == 1 && badEnum[0].contains("ANDROID is not one of"))
        let (_, tooMany) = spec.check(method: "GET", path: "/v1/builds", query: ["limit": "201"], body: [])
        #expect(tooMany.count == 1 && tooMany[0].contains("maximum 200"))
        let (none, missing) = spec.check(method: "GET", path: "/v1/nothing/here", query: [:], body: [])
        #expect(none == nil && missing.count == 1)
    }

    @Test func requestBodiesAreCheckedStrictly() throws {
        let good = try body(["data": ["type": "buildUploads",
                                      "attributes": ["cfBundleShortVersionString": "1.4.0", "cfBundleVersion": "42", "platform": "IOS"],
                                      "relationships": ["app": ["data": ["type": "apps", "id": "app-1"]]]]])
        #expect(spec.check(method: "POST", path: "/v1/buildUploads", query: [:], body: good).1.isEmpty)
        let extra = try body(["data": ["type": "buildUploads",
                                       "attributes": ["cfBundleShortVersionString": "1.4.0", "cfBundleVersion": "42", "platform": "IOS", "notes": "x"],
                                       "relationships": ["app": ["data": ["type": "apps", "id": "app-1"]]]]])
        #expect(spec.check(method: "POST", path: "/v1/buildUploads", query: [:], body: extra).1
            == ["POST /v1/buildUploads: request body/data/attributes has member notes, which the schema does not declare"])
        let wrong = try body(["data": ["type": "builds", "id": "b", "attributes": ["usesNonExemptEncryption": "no"]]])
        #expect(spec.check(method: "PATCH", path: "/v1/builds/b", query: [:], body: wrong).1
            == ["PATCH /v1/builds/{id}: request body/data/attributes/usesNonExemptEncryption is not a boolean"])
        let noID = try body(["data": ["type": "builds", "attributes": ["usesNonExemptEncryption": true]]])
        #expect(spec.check(method: "PATCH", path: "/v1/builds/b", query: [:], body: noID).1
            == ["PATCH /v1/builds/{id}: request body/data misses required member id"])
        let badType = try body(["data": ["type": "apps", "id": "b"]])
        #expect(spec.check(method: "PATCH", path: "/v1/builds/b", query: [:], body: badType).1.first?.contains("not one of builds") == true)
    }

    @Test func answersAreCheckedAgainstTheSchemaForTheirStatus() throws {
        let operation = try #require(spec.operation(method: "GET", path: "/v1/buildUploads/u-1"))
        let good: [String: Any] = ["data": ["type": "buildUploads", "id": "u-1", "attributes": [
            "state": ["state": "FAILED", "errors": [["code": "ITMS-90000", "description": "broken"]]]]], "links": ["self": "/v1/buildUploads/u-1"]]
        #expect(spec.check(answer: 200, body: good, to: operation).isEmpty)
        // Apple's state details carry `description`; `message` is not in the description.
        let message: [String: Any] = ["data": ["type": "buildUploads", "id": "u-1", "attributes": [
            "state": ["state": "FAILED", "errors": [["code": "ITMS-90000", "message": "broken"]]]]], "links": ["self": "/v1/buildUploads/u-1"]]
        #expect(spec.check(answer: 200, body: message, to: operation)
            == ["GET /v1/buildUploads/{id}: answer 200/data/attributes/state/errors/0 has member message, which the schema does not declare"])
        let noLinks: [String: Any] = ["data": ["type": "buildUploads", "id": "u-1"]]
        #expect(spec.check(answer: 200, body: noLinks, to: operation) == ["GET /v1/buildUploads/{id}: answer 200 misses required member links"])
        #expect(spec.check(answer: 409, body: ["errors": []], to: operation) == ["GET /v1/buildUploads/{id} answered 409, which it does not document"])
        let error: [String: Any] = ["errors": [["status": "404", "code": "NOT_FOUND", "detail": "gone"]]]
        #expect(spec.check(answer: 404, body: error, to: operation) == ["GET /v1/buildUploads/{id}: answer 404/errors/0 misses required member title"])
        let delete = try #require(spec.operation(method: "DELETE", path: "/v1/buildUploads/u-1"))
        #expect(spec.check(answer: 204, body: nil, to: delete).isEmpty)
    }

    @Test func theStandInRecordsARequestTheDescriptionRefusesAndAnswersAsAppleDoes() async throws {
        let apple = try FakeAppStoreConnect()
        try await apple.start()
        defer { apple.stop() }
        let credentials = AppStoreConnectCredentials(keyID: StoreFixtures.appleKeyID, issuerID: StoreFixtures.appleIssuerID, privateKey: StoreFixtures.appleKey)
        let client = AppStoreConnectClient(credentials: credentials, environment: [AppStoreConnectCredentials.apiURLVariable: apple.baseURL],
                                           transport: HTTPTransport(sender: LiveHTTPClient(), retryPolicy: RetryPolicy()))
        await #expect(throws: StoreAPIError.self) {
            _ = try await client.get("/v1/builds", query: [("filter[bundleId]", "com.acme.rocket")], as: ASCDocument<[AppStoreConnectClient.Build]>.self, operation: "read")
        }
        #expect(apple.takeViolations() == ["GET /v1/builds: query parameter filter[bundleId] is not declared"])
        let builds = try await client.get("/v1/builds", query: [("filter[app]", "app-1"), ("filter[preReleaseVersion.platform]", "IOS")],
                                          as: ASCDocument<[AppStoreConnectClient.Build]>.self, operation: "read")
        #expect(builds.data.isEmpty)
        #expect(apple.violations.isEmpty)
    }
}
