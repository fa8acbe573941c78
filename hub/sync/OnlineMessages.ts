import type { DfuMessage, ProtocolReply, WebRequestMessage } from "../../protocol/messages.js";
import type { DfuService } from "../dfu/DfuService.js";
import type { HubStore } from "../store/HubStore.js";
import type { FoundSession, SessionRecords } from "./SessionRecords.js";
import { SyncRefusal } from "./SyncRefusal.js";
import type { WebProxy } from "./WebProxy.js";

export interface OnlineMessageParts {
  readonly store: HubStore;
  readonly dfu: DfuService;
  readonly web: WebProxy;
  readonly records: SessionRecords;
}

/**
 * The messages of an open session that other services answer: firmware messages (the DFU
 * service) and web requests (the project's proxy routes). The session is checked in a transaction
 * of its own; the answer is made outside it and counted in the session.
 */
export class OnlineMessages {
  constructor(private readonly p: OnlineMessageParts) {}

  /**
   * A firmware message of an open session, answered by the DFU service. `firmware` and `dfu` are
   * one store transaction with the session's check and count (the service's own transaction is a
   * nested unit of it); a `read` checks the session in one and reads the image outside any (a
   * large image holds no write lock).
   */
  async firmware(request: DfuMessage, bytes: number): Promise<ProtocolReply> {
    const answer = async (found: FoundSession) => {
      if ("refused" in found) return found.refused;
      const { session, device } = found;
      const who = { deviceUid: device.uid, projectUid: device.projectUid };
      const reply = await this.p.dfu.handleSyncMessage(who, request);
      await this.p.records.account(session, bytes, reply);
      return reply;
    };
    if (request.type === "read") {
      return answer(await this.p.store.transaction(() => this.p.records.find(request.token)));
    }
    return this.p.store.transaction(async () => answer(await this.p.records.find(request.token)));
  }

  /**
   * A web request of an open session: the session is checked in a transaction of its own, the
   * request (which waits on the network) is made outside any, then counted in the session.
   */
  async web(request: WebRequestMessage, bytes: number): Promise<ProtocolReply> {
    const found = await this.p.store.transaction(() => this.p.records.find(request.token));
    if ("refused" in found) return found.refused;
    const { session, device } = found;
    let reply: ProtocolReply;
    try {
      reply = await this.p.web.handle({ deviceUid: device.uid, projectUid: device.projectUid }, request);
    } catch (error) {
      if (!(error instanceof SyncRefusal)) throw error;
      reply = error.reply();
    }
    await this.p.records.account(session, bytes, reply);
    return reply;
  }
}
