import { registerErrors } from '../../platform/kit/errors.js'

export const SSO_ERRORS = registerErrors({
  SSO_DOMAIN_TAKEN: {
    status: 409,
    errorCode: 'already_exists',
    additionalCode: 'SSO-4090',
    message:
      'Another subscription already claims this email domain for single sign-on (the sign-in page finds a subscription by its domain).',
  },
})
