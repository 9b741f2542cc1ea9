/** Administration → Users (features/users): the list, the user dialogs and what each change does. */
export const users = {
  'users.title': 'Users',
  'users.add': 'Add user',
  'users.addTitle': 'Add a user',
  'users.adding': 'Adding…',
  'users.username': 'Username',
  'users.usernameHint': 'Letters, digits and . _ @ -',
  'users.password': 'Password',
  'users.passwordHint': 'At least {min} characters; tell it to the user over a safe channel.',
  'users.role': 'Role',
  'users.roleDescription':
    '{role, select, owner {everything; reserved for the account made at first run (break-glass)} admin {everything but the owner’s reserved rights: keys, users, settings, TLS, enrollment} operator {reads and runs the fleet: commands, files, services, power; no administration} other {reads only: every change is refused}}',
  'users.changeRoleTitle': 'Change the role of {name}',
  'users.resetTitle': 'Reset the password of {name}',
  'users.changeRole': 'Change role',
  'users.resetPassword': 'Reset password',
  'users.changeRoleNamed': 'Change role of {name}',
  'users.resetPasswordNamed': 'Reset password of {name}',
  'users.roleHint': '{description}. The user’s sessions end: they sign in again under the new role.',
  'users.newPassword': 'New password',
  'users.newPasswordHint': 'The user’s sessions end; they sign in with this password.',
  'users.removalTitle':
    '{kind, select, disable {Disable {name}?} enable {Enable {name}?} other {Delete {name}?}}',
  'users.removalConfirm': '{kind, select, disable {Disable user} enable {Enable user} other {Delete user}}',
  'users.enableText':
    '{name} can sign in again. Their API keys work again, and schedules that run as them run again from their next tick.',
  'users.disableSignIn': '{name} cannot sign in; every console session they have ends now.',
  'users.disableKeys': 'Their API keys answer 401 until they are enabled again (the keys are kept).',
  'users.disableSchedules':
    'Schedules that run as them are refused at each tick, with the reason, until then.',
  'users.deleteAccount':
    '{name}’s account, console sessions, API keys, phone passkeys and push subscriptions, and personal terminal snippets and bookmarks are removed for good.',
  'users.deleteShared':
    'Their shared snippets stay for the others: they go to the user chosen below, or else stay under {name}’s id, still changed by admins.',
  'users.deleteAudit': 'The audit trail keeps everything they did, under their id and name.',
  'users.deleteSchedules':
    'If schedules run as {name}, the delete is refused unless you choose who runs them from now on (never with more rights than {name} had).',
  'users.deleteSso':
    'An account made by single sign-on is made anew, empty, if {name} signs in there again: to keep them out, disable them instead, or remove them at the identity provider.',
  'users.heir': 'Schedules and shared snippets go to',
  'users.nobody': 'nobody: refuse if schedules run as them',
  'users.heirOption': '{name} ({role})',
  'users.loading': 'Loading the users',
  'users.none': 'No users',
  'users.column': '{column, select, username {Username} role {Role} created {Created} other {Changed}}',
  'users.you': 'you',
  'users.disabled': 'disabled',
  'users.toggle': '{kind, select, disable {Disable} other {Enable}}',
  'users.toggleNamed': '{kind, select, disable {Disable {name}} other {Enable {name}}}',
  'users.roles': 'Roles',
  'users.ownAccount': 'Your own password and two-factor sign-in are under {link}.',
  'users.ownAccountLink': 'your account',
};
