"""The vocabulary of search_text.py: synonym groups, phrases and stop words (read by it only).

Written from general knowledge of what API users say and what APIs call things, never from an
evaluation's tasks: a query word matches its groups' other words (search.SYNONYM_WEIGHT), a phrase is
read as the words it means before analysis, stop words are dropped.
"""

from __future__ import annotations

__all__ = ["ACTIONS", "PHRASES", "STOP_WORDS", "SYNONYMS"]


def _groups(text: str) -> tuple[tuple[str, ...], ...]:
    return tuple(tuple(line.split()) for line in text.strip().splitlines())


# What operations do (a name holding one of these says what it does), one group a line.
ACTIONS = _groups("""
create add new make open post insert register generate instantiate
delete remove destroy erase drop discard kill kick purge clear flush
update edit change modify set patch replace close rename alter mark
get show read retrieve fetch view look lookup detail info describe
list all every which what browse enumerate index
search find query lookup filter
start run trigger execute launch begin invoke
stop cancel abort end halt terminate
complete done finish resolve
merge combine consolidate
block deny ban blocklist blacklist
deploy publish release ship rollout
pause suspend snooze mute silence
copy duplicate clone
send post deliver notify
upload import put
download export content
subscribe follow watch
unsubscribe unfollow optout
archive hide
invite invitation
enable activate
disable deactivate
restart reboot reset
refund reimburse
""")

# Things, and general API concepts, one group a line.
SYNONYMS = ACTIONS + _groups("""
ticket issue incident case
user member person people colleague teammate collaborator who
me current self whoami own mine authenticated
team group
organization org company
repository repo
message chat post
channel conversation room
comment note reply
file attachment document doc
image picture photo icon avatar
label tag
folder directory
token key credential secret apikey
password passphrase credential
setting config configuration preference option
permission access role scope grant allow allowed authorize authorization privilege
statistic stats metric analytics usage count report
cost spend billing price invoice charge money bill owe fee pay payment
log history audit activity timeline
recent latest history
online presence away available
maintenance downtime window
storage volume disk
schedule cron recurring periodic nightly daily hourly weekly
email mail
domain hostname host site website zone subdomain dns
dns nameserver record
webhook callback hook listener endpoint
server instance machine vm node host compute
balancer balance spread distribute pool origin backend upstream
traffic request load bandwidth
ingress route routing gateway inbound
firewall waf rule
transcribe transcription speech audio voice recording dictation
embedding embed vector similarity semantic
completion chat answer respond prompt ask
batch bulk many multiple mass
dependency depend blocker blocked prerequisite waiting
time hours duration worklog timesheet
phone sms mobile call text
certificate cert ssl tls https
alert alarm alerting warning
metric cpu memory utilization performance monitor monitoring
error failure crash exception
customer client buyer shopper
subscription plan membership
order purchase buy checkout cart
product catalog sku merchandise goods
shipment shipping parcel fulfillment fulfilment
inventory stock quantity
calendar meeting appointment booking reservation
login signin session authenticate
logout signout
translate translation language locale
quota limit throttle
environment env staging production
escalate page responder escalation
command exec shell terminal console
override cover substitute
""")

# Multi-word phrases read as the words they mean (question words included), before analysis.
PHRASES: dict[str, str] = {
    "how many": "count",
    "how much": "amount cost usage",
    "who am i": "me current user",
    "turn on": "enable",
    "turn off": "disable",
    "switch on": "enable",
    "switch off": "disable",
    "sign up": "register",
    "sign in": "login",
    "log in": "login",
    "logged in": "current",
    "right now": "current",
    "sign out": "logout",
    "log out": "logout",
    "set up": "create configure",
    "spin up": "create",
    "shut down": "stop shutdown",
    "look up": "lookup",
    "get rid of": "delete",
    "take down": "delete",
    "roll back": "rollback",
    "back up": "backup",
    "opt out": "optout unsubscribe",
    "speech to text": "transcription",
    "text to speech": "speech",
}

STOP_WORDS = frozenset("""
a about also am an and any are as at be been being but by can could did do does doing for from
had has have having he her here him his how i if in into is it its just let might must my myself
of off on once only or other our ours out please she should so some such than that the their
them then there these they this those through to too under until us very via was we were when
where while whom why will with would you your yours
above across after against along among amongst around before behind below beside besides between
beyond during inside near onto over throughout toward towards upon within without
""".split())  # noqa: SIM905 (a paragraph reads better than 110 quoted words)
