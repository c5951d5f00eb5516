// The account page (#/account, docs/accounts.md): sign in with a passkey or a password, make
// an account with either, and once signed in: add a passkey, download your data, sign out
// (here or everywhere), delete the account. Signing up or in claims the seats of this tab.

import { h, api, toast, download } from "./ui.js";
import { t } from "./i18n.js";
import { account, changeHeaders, claimTabSeats, onAccount, signedIn } from "./session.js";

/** Whether this browser can make and use passkeys (WebAuthn with the JSON helpers). */
const passkeysHere = () =>
  typeof PublicKeyCredential !== "undefined" &&
  typeof PublicKeyCredential.parseCreationOptionsFromJSON === "function" &&
  typeof PublicKeyCredential.parseRequestOptionsFromJSON === "function";

/** Make a passkey: for a new account (`who` = {handle, display_name}) or the signed-in one. */
async function createPasskey(who) {
  const begin = await api("POST", "/api/account/passkeys/register/begin", who || {}, changeHeaders());
  const cred = await navigator.credentials.create({
    publicKey: PublicKeyCredential.parseCreationOptionsFromJSON(begin.options),
  });
  return api("POST", "/api/account/passkeys/register/finish", { ceremony: begin.ceremony, credential: cred.toJSON() });
}

async function usePasskey() {
  const begin = await api("POST", "/api/account/passkeys/signin/begin");
  const cred = await navigator.credentials.get({
    publicKey: PublicKeyCredential.parseRequestOptionsFromJSON(begin.options),
  });
  return api("POST", "/api/account/passkeys/signin/finish", { ceremony: begin.ceremony, credential: cred.toJSON() });
}

export function mountAccount(root) {
  const page = h("div", { class: "account-page" });
  root.append(page);
  let busy = false;

  /** Run a sign-in or sign-up: remember the session, claim this tab's seats, say so. */
  const enter = async (work) => {
    if (busy) return;
    busy = true;
    try {
      const body = await work();
      signedIn(body);
      const n = await claimTabSeats();
      toast(n ? t("account.claimed", { n }) : t("account.welcome", { name: body.account.display_name }), "info");
    } catch (e) {
      toast(e.name === "NotAllowedError" ? t("account.passkeyCancelled") : e.message);
    }
    busy = false;
  };

  const field = (id, label, attrs = {}) =>
    h("label", { class: "field" }, label, h("input", { id, type: "text", maxlength: 200, ...attrs }));
  const value = (id) => page.querySelector(`#${id}`).value;

  function signedOut() {
    const keys = passkeysHere();
    return [
      h("h1", {}, t("account.title")),
      h("p", {}, t("account.intro")),
      h(
        "section",
        { class: "panel", id: "signin" },
        h("h2", {}, t("account.signIn")),
        keys
          ? h("p", {}, h("button", { type: "button", class: "primary", id: "signin-passkey", onclick: () => enter(usePasskey) }, t("account.signInPasskey")))
          : null,
        h(
          "form",
          {
            class: "row",
            onsubmit: (ev) => {
              ev.preventDefault();
              enter(() => api("POST", "/api/account/signin", { handle: value("signin-handle"), password: value("signin-password") }));
            },
          },
          field("signin-handle", t("account.handle"), { autocomplete: "username", required: true }),
          field("signin-password", t("account.password"), { type: "password", autocomplete: "current-password", required: true }),
          h("button", { type: "submit", id: "signin-submit" }, t("account.signInPassword")),
        ),
      ),
      h(
        "section",
        { class: "panel", id: "signup" },
        h("h2", {}, t("account.signUp")),
        h("p", { class: "muted" }, t("account.signUpIntro")),
        h(
          "div",
          { class: "row" },
          field("signup-handle", t("account.handle"), { autocomplete: "username", required: true }),
          field("signup-name", t("account.displayName"), { autocomplete: "nickname", maxlength: 40, required: true }),
        ),
        keys
          ? h(
              "p",
              {},
              h(
                "button",
                {
                  type: "button",
                  class: "primary",
                  id: "signup-passkey",
                  onclick: () => enter(() => createPasskey({ handle: value("signup-handle"), display_name: value("signup-name") })),
                },
                t("account.signUpPasskey"),
              ),
            )
          : h("p", { class: "muted" }, t("account.noPasskeys")),
        h(
          "form",
          {
            class: "row",
            onsubmit: (ev) => {
              ev.preventDefault();
              enter(() =>
                api("POST", "/api/account/signup", {
                  handle: value("signup-handle"),
                  display_name: value("signup-name"),
                  password: value("signup-password"),
                }),
              );
            },
          },
          field("signup-password", t("account.newPassword"), { type: "password", autocomplete: "new-password", minlength: 8, required: true }),
          h("button", { type: "submit", id: "signup-submit" }, t("account.signUpPassword")),
        ),
      ),
    ];
  }

  // E-mail about correspondence games (docs/server.md, "E-mail"): filled in once the server
  // says whether it sends any; hidden when it does not.
  function mailPanel() {
    const box = h("section", { class: "panel", id: "mail", hidden: true });
    (async () => {
      let m;
      try {
        m = await api("GET", "/api/account/email");
      } catch {
        return;
      }
      if (!m.offered) return;
      const save = async (ev) => {
        ev.preventDefault();
        try {
          await api("PUT", "/api/account/email", { email: value("mail-address"), notify: box.querySelector("#mail-notify").checked }, changeHeaders());
          toast(t("account.mailSaved"), "info");
        } catch (e) {
          toast(e.message);
        }
      };
      box.replaceChildren(
        h("h2", {}, t("account.mail")),
        h("p", { class: "muted" }, t("account.mailIntro")),
        h(
          "form",
          { class: "row", onsubmit: save },
          field("mail-address", t("account.mailAddress"), { type: "email", autocomplete: "email", value: m.email || "", required: true }),
          h("label", {}, h("input", { type: "checkbox", id: "mail-notify", checked: m.notify }), " ", t("account.mailNotify")),
          h("button", { type: "submit", id: "mail-save" }, t("account.mailSave")),
        ),
      );
      box.hidden = false;
    })();
    return box;
  }

  function signedInView(me) {
    const a = me.account;
    const signOut = async (path) => {
      try {
        await api("POST", path, undefined, changeHeaders());
      } catch (e) {
        toast(e.message);
      }
      signedIn(null);
    };
    const exportData = async () => {
      try {
        download("kerala-account.json", await api("GET", "/api/account/export"));
      } catch (e) {
        toast(e.message);
      }
    };
    const remove = async () => {
      try {
        await api("DELETE", "/api/account", { handle: value("delete-handle") }, changeHeaders());
        signedIn(null);
        toast(t("account.deleted"), "info");
      } catch (e) {
        toast(e.message);
      }
    };
    const setPassword = async (ev) => {
      ev.preventDefault();
      const body = { password: value("new-password") };
      if (a.password) body.current = value("current-password");
      try {
        await api("POST", "/api/account/password", body, changeHeaders());
        await account(true);
        toast(t("account.passwordSaved"), "info");
      } catch (e) {
        toast(e.message);
      }
    };
    const addPasskey = async () => {
      try {
        await createPasskey(null);
        await account(true);
        toast(t("account.passkeyAdded"), "info");
      } catch (e) {
        toast(e.name === "NotAllowedError" ? t("account.passkeyCancelled") : e.message);
      }
    };
    return [
      h("h1", {}, t("account.title")),
      h(
        "section",
        { class: "panel", id: "whoami" },
        h("p", {}, t("account.signedInAs", { name: a.display_name, handle: a.handle })),
        h("p", { class: "muted" }, t("account.methods", { passkeys: a.passkeys, password: a.password ? t("account.yes") : t("account.no") })),
        h(
          "div",
          { class: "row" },
          h("a", { class: "button primary", href: "#/games", id: "to-my-games" }, t("nav.myGames")),
          passkeysHere() ? h("button", { type: "button", id: "add-passkey", onclick: addPasskey }, t("account.addPasskey")) : null,
          h("button", { type: "button", id: "signout", onclick: () => signOut("/api/account/signout") }, t("account.signOut")),
          h("button", { type: "button", id: "signout-all", onclick: () => signOut("/api/account/signout-everywhere") }, t("account.signOutAll")),
        ),
      ),
      h(
        "section",
        { class: "panel", id: "password" },
        h("h2", {}, a.password ? t("account.changePassword") : t("account.addPassword")),
        h(
          "form",
          { class: "row", onsubmit: setPassword },
          a.password ? field("current-password", t("account.password"), { type: "password", autocomplete: "current-password", required: true }) : null,
          field("new-password", t("account.newPassword"), { type: "password", autocomplete: "new-password", minlength: 8, required: true }),
          h("button", { type: "submit", id: "password-submit" }, t("account.savePassword")),
        ),
      ),
      mailPanel(),
      h(
        "section",
        { class: "panel", id: "my-data" },
        h("h2", {}, t("account.data")),
        h("p", {}, t("account.dataIntro")),
        h("button", { type: "button", id: "export", onclick: exportData }, t("account.export")),
        h("h3", {}, t("account.delete")),
        h("p", {}, t("account.deleteIntro")),
        h(
          "div",
          { class: "row" },
          field("delete-handle", t("account.typeHandle"), { autocomplete: "off" }),
          h("button", { type: "button", id: "delete-account", onclick: remove }, t("account.deleteButton")),
        ),
      ),
    ];
  }

  const render = (me) => page.replaceChildren(...(me.signed_in ? signedInView(me) : signedOut()).filter(Boolean));
  const stop = onAccount(render);
  account().then(render);
  return stop;
}
