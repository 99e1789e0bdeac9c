// "Notify me": this browser subscribes to Web Push with the server's VAPID key
// (GET /api/push/webpush-key) through the table's service worker (/play/sw.js), and the
// subscription, exactly as PushSubscription.toJSON() gives it, is registered as one of the
// player's devices (POST /api/players/me/devices). Offered only where the browser and the
// server both can.

import { request } from "./api.js";
import { h } from "./dom.js";
import { lang, t } from "./i18n.js";

const supported = () => "serviceWorker" in navigator && "PushManager" in window && "Notification" in window;

// The VAPID key as subscribe() takes it: base64url to bytes.
function keyBytes(base64url) {
  const text = atob(base64url.replace(/-/g, "+").replace(/_/g, "/"));
  return Uint8Array.from(text, (c) => c.charCodeAt(0));
}

async function subscribe(publicKey) {
  if ((await Notification.requestPermission()) !== "granted") throw new Error(t("notify_denied"));
  const registration = await navigator.serviceWorker.register("/play/sw.js", { scope: "/play/" });
  await navigator.serviceWorker.ready;
  const subscription =
    (await registration.pushManager.getSubscription()) ||
    (await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(publicKey) }));
  await request("POST", "/players/me/devices", {
    body: { kind: "webpush", subscription: subscription.toJSON(), locale: lang(), label: navigator.userAgent.slice(0, 100) },
  });
}

// The button, or nothing: no support here, or no Web Push on the server (404).
export async function notifyButton(toast) {
  if (!supported()) return null;
  let key;
  try {
    key = (await request("GET", "/push/webpush-key")).data.public_key;
  } catch {
    return null;
  }
  const button = h("button", { type: "button", id: "notify-me", text: t("notify_me") });
  button.onclick = async () => {
    button.disabled = true;
    try {
      await subscribe(key);
      toast(t("notify_on"));
      button.hidden = true;
    } catch (error) {
      toast(t("error", { message: error.message }));
      button.disabled = false;
    }
  };
  return button;
}
