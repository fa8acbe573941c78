import { ed25519 } from "@noble/curves/ed25519.js";
import { publicKeyFromPem, publicKeyToPem } from "../../core/Crypto.js";

/**
 * A device's Ed25519 public key in PEM (SubjectPublicKeyInfo, `-----BEGIN PUBLIC KEY-----`), read
 * and checked: the key bytes must be a point of the curve, and not one of small order (a
 * signature by no one verifies with such a key). Answers the key bytes and the PEM as the hub
 * stores it, or what is wrong in words.
 */
export function readDevicePublicKey(pem: string): { key: Uint8Array; pem: string } | { fault: string } {
  const key = publicKeyFromPem(pem);
  if (!key) {
    return {
      fault:
        "is not an Ed25519 public key in PEM (-----BEGIN PUBLIC KEY----- ... -----END PUBLIC KEY-----, as cardsim module --print-key prints it)",
    };
  }
  try {
    if (ed25519.Point.fromBytes(key).isSmallOrder()) {
      return { fault: "is a point of small order, which no device's key is" };
    }
  } catch {
    return { fault: "is not a point of the Ed25519 curve" };
  }
  return { key, pem: publicKeyToPem(key) };
}
