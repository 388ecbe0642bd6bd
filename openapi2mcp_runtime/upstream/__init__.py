"""The API side of a call: arguments serialized into a request (`serialize`), credentials
(`credentials`, `request_credentials`), the HTTP client and each capped exchange (`http_client`,
`http_exchange`), retries, rate and concurrency limits (`resilience`), and the audit log (`audit`).
"""
