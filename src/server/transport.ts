import { createPrivateKey, type KeyObject, X509Certificate } from "node:crypto";
import { createServer as createHttpServer, type RequestListener, type Server } from "node:http";
import { createServer as createHttpsServer } from "node:https";

/** A certificate (PEM, the server's first, then any chain) and its private key (PEM, no passphrase). */
export interface TlsCredentials {
	cert: string | Buffer;
	key: string | Buffer;
}

function reason(error: unknown): string {
	return error instanceof Error ? error.message : String(error);
}

/** Throws a clear error unless `tls` is a certificate and the private key of its public key. */
export function checkTlsCredentials(tls: TlsCredentials): void {
	let certificate: X509Certificate;
	try {
		certificate = new X509Certificate(tls.cert);
	} catch (error) {
		throw new Error(`The TLS certificate is not a PEM certificate: ${reason(error)}`, { cause: error });
	}
	let key: KeyObject;
	try {
		key = createPrivateKey(tls.key);
	} catch (error) {
		throw new Error(`The TLS key is not a private key (PEM, without a passphrase): ${reason(error)}`, {
			cause: error,
		});
	}
	if (!certificate.checkPrivateKey(key)) {
		throw new Error("The TLS key does not match the certificate: it is the key of another certificate");
	}
}

/**
 * The HTTP server of `atomic serve`: plain, or HTTPS with `tls`. Credentials that cannot serve
 * TLS throw here, so a server never falls back to plain HTTP.
 */
export function createListener(tls: TlsCredentials | undefined, handler: RequestListener): Server {
	if (tls === undefined) return createHttpServer(handler);
	checkTlsCredentials(tls);
	try {
		return createHttpsServer({ cert: tls.cert, key: tls.key }, handler);
	} catch (error) {
		throw new Error(`Cannot serve TLS with this certificate and key: ${reason(error)}`, { cause: error });
	}
}
