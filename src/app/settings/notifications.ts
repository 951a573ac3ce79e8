import type { NotificationsOptions } from '../../notifications/index.js'
import { flag, int, optionalText, section, text } from './define.js'
import type { Env } from './index.js'

/** Recipient notification emails (docs/notifications.md): where they are sent from and how hard we try. */
export const notificationsSettings = section({
  title: 'Notification emails',
  keys: {
    SMTP_URL: optionalText({
      pattern: '^smtps?://[^\\s]+$',
      secret: true,
      description:
        'smtp://user:pass@host:587 (STARTTLS when the server offers it) or smtps://user:pass@host:465 (TLS from the start); never logged or echoed; unset: every email is recorded as suppressed',
    }),
    MAIL_FROM: text({
      minLength: 3,
      default: 'mailroom <mailroom@localhost>',
      description: 'the From of every notification email',
    }),
    NOTIFY_RETRY_BASE_SECONDS: int({
      minimum: 1,
      maximum: 86_400,
      default: 30,
      description: "first retry's delay ceiling after an SMTP refusal (jittered, doubling, at most 6 h)",
    }),
    NOTIFY_MAX_ATTEMPTS: int({
      minimum: 1,
      maximum: 100,
      default: 8,
      description: 'attempts before an email is recorded failed',
    }),
    NOTIFY_SEND_TIMEOUT_SECONDS: int({
      minimum: 1,
      maximum: 300,
      default: 30,
      description:
        'SMTP connect, greeting and socket timeouts; a claimed email is claimed again 2x this + 10 s after a worker died',
    }),
    NOTIFY_TIME_ZONE: text({
      pattern: '^[A-Za-z][A-Za-z0-9_+-]*(/[A-Za-z0-9_+-]+)*$',
      default: 'UTC',
      description:
        "IANA time zone (e.g. Europe/London) of the times in emails about parcels whose site has no location above it; otherwise the location's time zone is used",
    }),
    SMS_ALLOW_CIDRS: text({
      default: '',
      pattern: '^([0-9a-fA-F:.]+/\\d{1,3})?(,[0-9a-fA-F:.]+/\\d{1,3})*$',
      description:
        'comma-separated CIDRs an SMS provider (Messages API or SMPP, docs/sms.md) may be in although private, e.g. 10.0.0.0/8',
    }),
    SMS_DEFAULT_COUNTRY: text({
      default: 'US',
      pattern: '^[A-Z]{2}$',
      description:
        'ISO 3166 country code of contact phone numbers written without a country code, e.g. (555) 123-4567; texts go to and replies are matched by the E.164 number',
    }),
    SMS_ALLOW_HTTP: flag({
      default: 'false',
      description: 'accept plain http:// Messages API URLs (development, tests)',
    }),
  },
})

export function notificationsConfig(env: Env): { notifications: NotificationsOptions } {
  return {
    notifications: Object.freeze({
      smtpUrl: env.SMTP_URL,
      mailFrom: env.MAIL_FROM,
      retryBaseMs: env.NOTIFY_RETRY_BASE_SECONDS * 1000,
      maxAttempts: env.NOTIFY_MAX_ATTEMPTS,
      sendTimeoutMs: env.NOTIFY_SEND_TIMEOUT_SECONDS * 1000,
      timeZone: env.NOTIFY_TIME_ZONE,
      smsAllowCidrs: env.SMS_ALLOW_CIDRS.split(',').filter((c) => c.length > 0),
      smsAllowHttp: env.SMS_ALLOW_HTTP === 'true',
      smsDefaultCountry: env.SMS_DEFAULT_COUNTRY,
    }),
  }
}

/** A time zone the runtime does not know is refused at boot, not met in the first email. */
export function notificationsProblems(env: Env): string[] {
  try {
    new Intl.DateTimeFormat('en', { timeZone: env.NOTIFY_TIME_ZONE })
    return []
  } catch {
    return [`NOTIFY_TIME_ZONE=${JSON.stringify(env.NOTIFY_TIME_ZONE)}: is not an IANA time zone (e.g. Europe/London)`]
  }
}
