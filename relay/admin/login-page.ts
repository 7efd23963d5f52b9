// The login form (shown when a password is configured): plain HTML, no script, the shared stylesheet.
const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function loginPage(o: { message?: string }): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>a2a-relay · sign in</title>
<link rel="icon" href="/assets/icon.svg">
<link rel="stylesheet" href="/assets/app.css">
</head>
<body class="login">
<main>
<form method="post" action="/login" class="card login-form">
<h1>a2a-relay admin</h1>
<p class="muted">This relay's admin UI is reachable beyond this machine, so it asks for the password set in <code>admin_password</code> (or <code>SVC_ADMIN_PASSWORD</code>).</p>
${o.message ? `<p class="error" role="alert">${escapeHtml(o.message)}</p>` : ''}
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required autofocus>
<button type="submit">Sign in</button>
</form>
</main>
</body>
</html>
`;
}
