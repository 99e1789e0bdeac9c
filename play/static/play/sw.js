// The web table's service worker (served at /play/sw.js, scope /play/): shows the server's pushes
// and opens the game on a click. A push's payload is {title, body, data} (docs/push.md, the
// PushData schema); one tag per game, so the newest push of a game replaces the older silently.

self.addEventListener("push", (event) => {
  const message = event.data ? event.data.json() : null;
  if (!message) return;
  const data = message.data || {};
  event.waitUntil(
    self.registration.showNotification(message.title, {
      body: message.body,
      tag: data.game_id ? `game-${data.game_id}` : data.kind,
      renotify: false,
      data,
    }),
  );
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const url = new URL(event.notification.data.url || "/play/", self.location.origin).href;
  event.waitUntil(
    self.clients.matchAll({ type: "window", includeUncontrolled: true }).then((windows) => {
      const open = windows.find((client) => client.url.startsWith(`${self.location.origin}/play/`));
      if (open) return open.navigate(url).then((client) => (client || open).focus());
      return self.clients.openWindow(url);
    }),
  );
});
