// @peculiar/x509 resolves its services through tsyringe, which needs the Reflect metadata API.
import "reflect-metadata";
import { webcrypto, X509Certificate } from "node:crypto";
import { isIP } from "node:net";
import * as x509 from "@peculiar/x509";

type Key = webcrypto.CryptoKey;
type KeyPair = webcrypto.CryptoKeyPair;

// The library's types name the DOM's crypto classes; Node's webcrypto implements them.
x509.cryptoProvider.set(webcrypto as never);

const ALGORITHM = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" } as const;
const DAY_MS = 86_400_000;

export interface PemPair {
  cert: string;
  key: string;
}

async function exportKey(key: Key): Promise<string> {
  const der = await webcrypto.subtle.exportKey("pkcs8", key);
  return x509.PemConverter.encode(der, "PRIVATE KEY");
}

async function importKey(pem: string): Promise<Key> {
  return webcrypto.subtle.importKey("pkcs8", x509.PemConverter.decodeFirst(pem), ALGORITHM, true, ["sign"]);
}

function serial(): string {
  const bytes = webcrypto.getRandomValues(new Uint8Array(16));
  bytes[0]! &= 0x7f; // positive
  return Buffer.from(bytes).toString("hex");
}

/**
 * The hub's own certificate authority: a self-signed ECDSA P-256 root made on first start, and
 * server certificates it signs for the names the hub listens on. Clients trust the root (its
 * path is in credentials.json), so HTTPS needs no public CA.
 */
export class CertificateAuthority {
  private constructor(
    readonly pem: PemPair,
    private readonly cert: x509.X509Certificate,
    private readonly keys: { privateKey: Key; publicKey: Key },
  ) {}

  static async create(now: number, name = "cardsim local hub CA"): Promise<CertificateAuthority> {
    const keys = (await webcrypto.subtle.generateKey(ALGORITHM, true, ["sign", "verify"])) as KeyPair;
    const cert = await x509.X509CertificateGenerator.createSelfSigned({
      serialNumber: serial(),
      name: `CN=${name}, O=cardsim`,
      notBefore: new Date(now - DAY_MS),
      notAfter: new Date(now + 10 * 365 * DAY_MS),
      keys: keys as never,
      signingAlgorithm: ALGORITHM,
      extensions: [
        new x509.BasicConstraintsExtension(true, 0, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
        await x509.SubjectKeyIdentifierExtension.create(keys.publicKey as never),
      ],
    });
    return new CertificateAuthority(
      { cert: cert.toString("pem"), key: await exportKey(keys.privateKey) },
      cert,
      keys,
    );
  }

  static async load(pem: PemPair): Promise<CertificateAuthority> {
    const cert = new x509.X509Certificate(pem.cert);
    const privateKey = await importKey(pem.key);
    const publicKey = (await cert.publicKey.export(ALGORITHM, ["verify"])) as unknown as Key;
    return new CertificateAuthority(pem, cert, { privateKey, publicKey });
  }

  /** A server certificate for these DNS names and IP addresses, valid about two years. */
  async issueServerCertificate(hosts: readonly string[], now: number): Promise<PemPair> {
    const keys = (await webcrypto.subtle.generateKey(ALGORITHM, true, ["sign", "verify"])) as KeyPair;
    const names = [...new Set(hosts)].map((h) =>
      isIP(h) ? { type: "ip" as const, value: h } : { type: "dns" as const, value: h },
    );
    const cert = await x509.X509CertificateGenerator.create({
      serialNumber: serial(),
      subject: `CN=${hosts[0] ?? "localhost"}, O=cardsim`,
      issuer: this.cert.subject,
      notBefore: new Date(now - DAY_MS),
      notAfter: new Date(now + 825 * DAY_MS),
      signingKey: this.keys.privateKey as never,
      publicKey: keys.publicKey as never,
      signingAlgorithm: ALGORITHM,
      extensions: [
        new x509.BasicConstraintsExtension(false, undefined, true),
        new x509.KeyUsagesExtension(
          x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment,
          true,
        ),
        new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
        new x509.SubjectAlternativeNameExtension(names),
        await x509.AuthorityKeyIdentifierExtension.create(this.keys.publicKey as never),
        await x509.SubjectKeyIdentifierExtension.create(keys.publicKey as never),
      ],
    });
    return { cert: cert.toString("pem"), key: await exportKey(keys.privateKey) };
  }
}

/** True when a PEM server certificate is current (a day of margin) and covers every host. */
export function certificateCovers(pem: string, hosts: readonly string[], now: number): boolean {
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(pem);
  } catch {
    return false;
  }
  if (Date.parse(cert.validTo) - DAY_MS < now || Date.parse(cert.validFrom) > now) return false;
  return hosts.every((h) => (isIP(h) ? cert.checkIP(h) !== undefined : cert.checkHost(h) !== undefined));
}
