//! Probes of a TLS server on 127.0.0.1, as a test sees it from outside: which HTTP versions it
//! speaks, trusting whatever certificate it shows (as Prometheus with `insecureSkipVerify`).

use std::io::{Read, Write};
use std::sync::Arc;
use std::time::Duration;

use rustls::DigitallySignedStruct;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};

/// A TLS handshake offering the ALPN protocols `alpn`: the protocol agreed, or the error.
pub fn handshake(port: u16, alpn: &[&[u8]]) -> Result<Option<Vec<u8>>, String> {
    let mut tls = connect(port, alpn);
    tls.conn.complete_io(&mut tls.sock).map_err(|e| format!("{e:?}"))?;
    Ok(tls.conn.alpn_protocol().map(<[u8]>::to_vec))
}

/// Speaks HTTP/2 without ALPN, as a client with prior knowledge does: the connection preface
/// and an empty SETTINGS frame. What came back: an HTTP/1.1 server's error or nothing, where an
/// HTTP/2 server would answer with its SETTINGS frame.
pub fn h2_prior_knowledge(port: u16) -> Vec<u8> {
    let mut tls = connect(port, &[]);
    tls.sock.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let mut hello = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".to_vec();
    hello.extend([0, 0, 0, 4, 0, 0, 0, 0, 0]);
    let _ = tls.write_all(&hello);
    let mut answer = Vec::new();
    let _ = tls.read_to_end(&mut answer);
    answer
}

pub fn connect(port: u16, alpn: &[&[u8]]) -> rustls::StreamOwned<rustls::ClientConnection, std::net::TcpStream> {
    // ring's provider, as the manager uses (deprecated from rustls 0.23.48).
    #[allow(deprecated)]
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = rustls::ClientConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .unwrap()
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(AnyCertificate(provider)))
        .with_no_client_auth();
    config.alpn_protocols = alpn.iter().map(|p| p.to_vec()).collect();
    let name = ServerName::try_from("127.0.0.1").unwrap();
    let connection = rustls::ClientConnection::new(Arc::new(config), name).unwrap();
    rustls::StreamOwned::new(connection, std::net::TcpStream::connect(("127.0.0.1", port)).unwrap())
}

/// Trusts whatever certificate the server shows, as Prometheus does with `insecureSkipVerify`
/// (the manager's certificate is self-signed); signatures are still checked.
#[derive(Debug)]
struct AnyCertificate(Arc<rustls::crypto::CryptoProvider>);

impl ServerCertVerifier for AnyCertificate {
    fn verify_server_cert(
        &self,
        _: &CertificateDer<'_>,
        _: &[CertificateDer<'_>],
        _: &ServerName<'_>,
        _: &[u8],
        _: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(message, cert, dss, &self.0.signature_verification_algorithms)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(message, cert, dss, &self.0.signature_verification_algorithms)
    }

    fn supported_verify_schemes(&self) -> Vec<rustls::SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}

/// Checks that the server on `port` speaks HTTP/1.1 alone: it refuses a client offering only
/// `h2` over ALPN, agrees on `http/1.1`, and does not answer HTTP/2 to a client that starts it
/// without asking.
pub fn assert_http_1_1_alone(port: u16) {
    let h2 = handshake(port, &[b"h2"]);
    assert!(h2.as_ref().is_err_and(|e| e.contains("NoApplicationProtocol")), "HTTP/2 is offered: {h2:?}");
    assert_eq!(handshake(port, &[b"h2", b"http/1.1"]), Ok(Some(b"http/1.1".to_vec())));
    let answer = h2_prior_knowledge(port);
    // An HTTP/2 server's first frame is its SETTINGS: a 3-byte length, then type 4.
    assert_ne!(answer.get(3), Some(&4), "HTTP/2 spoken without ALPN: {answer:?}");
    assert!(answer.is_empty() || answer.starts_with(b"HTTP/1.1 400"), "{answer:?}");
}
