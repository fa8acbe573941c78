import type { DfuMessage, ProtocolReply, WebRequestMessage } from "../../protocol/messages.js";
import type { DfuService } from "../dfu/DfuService.js";
import type { HubStore } from "../store/HubStore.js";
import type { SessionRecords } from "./SessionRecords.js";
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
   * A firmware message of an open session, answered by the DFU service (which takes its own
   * transactions: a `read` of a large image holds no write lock).
   */
  async firmware(request: DfuMessage, bytes: number): Promise<ProtocolReply> {
    const found = await this.p.store.transaction(() => this.p.records.find(request.token));
    if ("refused" in found) return found.refused;
    const { session, device } = found;
    const reply = await this.p.dfu.handleSyncMessage(
      { deviceUid: device.uid, projectUid: device.projectUid },
      request,
    );
    await this.p.records.account(session, bytes, reply);
    return reply;
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
