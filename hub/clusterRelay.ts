import type { FeedItem } from "./feed/HubFeed.js";
import type { HubFeed } from "./feed/HubFeed.js";
import { eventDocument } from "./events/eventDocument.js";
import { MAX_CLUSTER_PAYLOAD, type ClusterStore } from "./store/ClusterStore.js";
import type { HubStore } from "./store/HubStore.js";
import type { DeviceChange, SyncNotifier } from "./sync/SyncNotifier.js";

/** How long a process believes another's word that it has feed listeners, before beats confirm it. */
const HEARD_LISTENING_MS = 30_000;

/** A device change as it crosses processes. */
interface DeviceMessage {
  n: string;
  d: string;
  c: DeviceChange;
}

/** A feed message: an item, a reference to an event too long to send, or a process's listeners. */
interface FeedMessage {
  n: string;
  item?: FeedItem;
  ref?: { projectUid: string; uid: string };
  listening?: boolean;
}

/**
 * Joins this hub process to the others over a shared store (docs/hub.md, "Several hub
 * processes"): device changes (a signal queued, a notefile or a variable changed) wake the
 * `signals` waits of whichever process holds the device's session, and the live feed (the
 * console's stream, `cardsim tail`) of every process tells what happens in all of them. Messages
 * a process sends are heard by itself too: it skips its own.
 */
export function relayAcrossProcesses(
  cluster: ClusterStore,
  store: HubStore,
  notifier: SyncNotifier,
  feed: HubFeed,
  onError: (error: unknown) => void,
): () => void {
  const node = cluster.node;
  notifier.relayTo((d, c) => cluster.publish("cardsim_device", JSON.stringify({ n: node, d, c })));
  const stopDevices = cluster.subscribe("cardsim_device", (payload) => {
    const message = JSON.parse(payload) as DeviceMessage;
    if (message.n !== node) notifier.notifyHere(message.d, message.c);
  });

  let heardUntil = 0;
  const send = (item: FeedItem) => {
    const text = JSON.stringify({ n: node, item } satisfies FeedMessage);
    if (Buffer.byteLength(text) <= MAX_CLUSTER_PAYLOAD) return cluster.publish("cardsim_feed", text);
    // An event too long for a notification: the others read it from the store.
    if (item.kind !== "event") return;
    const ref = { projectUid: item.projectUid, uid: String(item.event["event"]) };
    cluster.publish("cardsim_feed", JSON.stringify({ n: node, ref } satisfies FeedMessage));
  };
  const told = (listening: boolean) => {
    cluster.setListening(listening);
    if (listening)
      cluster.publish("cardsim_feed", JSON.stringify({ n: node, listening } satisfies FeedMessage));
  };
  feed.relayTo(send, () => cluster.othersListening || heardUntil > Date.now(), told);
  const stopFeed = cluster.subscribe("cardsim_feed", (payload) => {
    const message = JSON.parse(payload) as FeedMessage;
    if (message.n === node) return;
    if (message.listening) heardUntil = Date.now() + HEARD_LISTENING_MS;
    if (message.item) feed.publishHere(message.item);
    const ref = message.ref;
    if (ref && feed.listeningHere) {
      store.telemetry.getEvent(ref.projectUid, ref.uid).then((record) => {
        if (!record) return;
        const atMs = Math.round(record.received * 1000);
        const { projectUid, deviceUid, file } = record;
        feed.publishHere({ kind: "event", projectUid, deviceUid, file, atMs, event: eventDocument(record) });
      }, onError);
    }
  });
  return () => {
    stopDevices();
    stopFeed();
  };
}
