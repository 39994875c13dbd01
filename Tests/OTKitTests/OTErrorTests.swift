import Testing
@testable import OTKit
import OTMedia

/// OpenTok's numbers, from its iOS documentation's constants pages (opentok-model.md
/// 1.14): apps compare these numbers, so they must not drift.
@Suite struct OTErrorTests {
    @Test(arguments: [
        (OTSessionErrorCode.authorizationFailure, 1004), (.invalidSession, 1005), (.connectionFailed, 1006),
        (.notConnected, 1010), (.nullOrInvalidParameter, 1011), (.illegalState, 1015), (.stateFailed, 1020),
        (.connectionTimeout, 1021), (.connectionDropped, 1022), (.connectionRefused, 1023), (.blockedCountry, 1026),
        (.connectionLimitExceeded, 1027), (.subscriberNotFound, 1112), (.publisherNotFound, 1113),
        (.p2pSessionMaxParticipants, 1403), (.signalDataTooLong, 1413), (.invalidSignalType, 1461),
        (.noMessagingServer, 1503), (.unableToForceDisconnect, 1520), (.unableToForceMute, 1540),
        (.unableToSendSignal, 1550), (.internalError, 2000), (.encryptionSecretMissing, 6000),
        (.invalidEncryptionSecret, 6004),
    ] as [(OTSessionErrorCode, Int32)])
    func sessionCodesAreOpenTok(code: OTSessionErrorCode, value: Int32) {
        #expect(code.rawValue == value)
    }

    @Test func publisherAndSubscriberCodesAreOpenTok() {
        let publisher: [OTPublisherErrorCode: Int32] = [.sessionDisconnected: 1010, .webRTCError: 1610, .internalError: 2000,
                                                         .encryptionInternalError: 6001, .encryptionUnsupportedCodec: 6005,
                                                         .invalidScalabilityMode: 6006]
        for (code, value) in publisher { #expect(code.rawValue == value, "\(code)") }
        let subscriber: [OTSubscriberErrorCode: Int32] = [.sessionDisconnected: 1010, .connectionTimedOut: 1542, .webRTCError: 1600,
                                                           .serverCannotFindStream: 1604, .streamLimitExceeded: 1605,
                                                           .peerConnectionNotConnected: 1606, .internalError: 2000,
                                                           .decryptionInternalError: 6002, .encryptionSecretMismatch: 6003,
                                                           .decryptionUnsupportedCodec: 6006]
        for (code, value) in subscriber { #expect(code.rawValue == value, "\(code)") }
        #expect(OTSessionErrorCode.allCases.count == 25)
    }

    @Test func domainsSeparateEqualNumbers() {
        // 6006 means different things for publishers and subscribers; 1010 too.
        let publisher = OTError(OTPublisherErrorCode.invalidScalabilityMode, "bad mode")
        let subscriber = OTError(OTSubscriberErrorCode.decryptionUnsupportedCodec, "codec")
        #expect(publisher.code == subscriber.code)
        #expect(publisher != subscriber)
        #expect(publisher.publisherCode == .invalidScalabilityMode && publisher.subscriberCode == nil)
        #expect(subscriber.description == "OTSubscriberErrorDomain 6006: codec")
    }

    @Test func engineFailuresMapToPublisherAndSubscriberCodes() {
        let lost = OTError(publishing: MediaError(.deviceLost, "camera /dev/video0 was unplugged"))
        #expect(lost.publisherCode == .internalError)
        #expect(lost.message.contains("/dev/video0"))
        let network = OTError(subscribing: MediaError(.networkFailure, "cannot bind 127.0.0.1:5004"))
        #expect(network.subscriberCode == .webRTCError)
        let ioctl = OTError(publishing: MediaError(.systemError, "VIDIOC_DQBUF failed"))
        #expect(ioctl.publisherCode == .internalError, "a camera ioctl failure is not a network error")
    }
}
