import { registerErrors } from '../../platform/kit/errors.js'

export const SSO_ERRORS = registerErrors({
  SSO_DOMAIN_TAKEN: {
    status: 409,
    errorCode: 'already_exists',
    additionalCode: 'SSO-4090',
    message:
      'The email domain is granted to another subscription for single sign-on (`mailroom sso grant`: the operator revokes that grant first).',
  },
})
