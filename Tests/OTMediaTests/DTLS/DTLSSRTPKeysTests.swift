import Testing
import OTMedia

/// The exporter split of RFC 5764 section 4.2: client key | server key | client salt |
/// server salt; the client sends with the client half, the server with the server half.
@Suite struct DTLSSRTPKeysTests {
    @Test(arguments: [SRTPProfile.aeadAES128GCM, .aesCM128HMACSHA1_80])
    func splitFollowsRFC5764(_ profile: SRTPProfile) throws {
        let key = profile.masterKeyLength, salt = profile.masterSaltLength
        let exported = (0..<(2 * (key + salt))).map { UInt8($0) }
        #expect(DTLSSRTPKeys.exportLength(for: profile) == exported.count)
        let clientKey = Array(exported[0..<key]), serverKey = Array(exported[key..<(2 * key)])
        let clientSalt = Array(exported[(2 * key)..<(2 * key + salt)]), serverSalt = Array(exported[(2 * key + salt)...])

        let client = try #require(DTLSSRTPKeys(profile: profile, exported: exported, role: .client))
        #expect(client.local.masterKey == clientKey && client.local.masterSalt == clientSalt)
        #expect(client.remote.masterKey == serverKey && client.remote.masterSalt == serverSalt)

        let server = try #require(DTLSSRTPKeys(profile: profile, exported: exported, role: .server))
        #expect(server.local.masterKey == serverKey && server.local.masterSalt == serverSalt)
        #expect(server.remote.masterKey == clientKey && server.remote.masterSalt == clientSalt)
        #expect(client.local.profile == profile && server.remote.profile == profile)
    }

    @Test func wrongLengthIsRefused() {
        #expect(DTLSSRTPKeys(profile: .aeadAES128GCM, exported: [UInt8](repeating: 1, count: 60), role: .client) == nil)
        #expect(DTLSSRTPKeys(profile: .aesCM128HMACSHA1_80, exported: [UInt8](repeating: 1, count: 56), role: .server) == nil)
        #expect(DTLSSRTPKeys(profile: .aeadAES128GCM, exported: [], role: .server) == nil)
    }

    @Test func profileIDsMatchTheRFCs() {
        #expect(SRTPProfile(dtlsSRTPID: 0x0007) == .aeadAES128GCM)
        #expect(SRTPProfile(dtlsSRTPID: 0x0001) == .aesCM128HMACSHA1_80)
        #expect(SRTPProfile(dtlsSRTPID: 0x0002) == .aesCM128HMACSHA1_32)
        #expect(SRTPProfile(dtlsSRTPID: 0x0008) == nil, "AEAD_AES_256_GCM has no libsrtp2 mapping here")
        #expect(SRTPProfile.dtlsDefaultOrder.map(\.dtlsSRTPName) == ["SRTP_AEAD_AES_128_GCM", "SRTP_AES128_CM_SHA1_80"])
    }
}
