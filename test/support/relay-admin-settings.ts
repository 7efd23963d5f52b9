// Test support: what the relay admin UI tests configure the relay with. The gateway and the local agent are addresses
// nothing answers at: only the admin server is under test. Each test adds the admin settings it is about.

/** The admin password the tests set and sign in with. */
export const ADMIN_PASSWORD = 'correct horse battery';

/** A relay config's settings apart from the admin ones (admin_port, admin_password, admin_bind). */
export const RELAY_SETTINGS = {
  workspace_id: 'ws1',
  api_key: 'relay-key-abcdefgh',
  gateway_url: 'ws://127.0.0.1:9',
  agents: [{ name: 'echo', local_url: 'http://127.0.0.1:9' }],
};
