/// The OpenAPI 3 description of the control API, served at `GET /openapi.json`. The same
/// text is committed as docs/control-api.openapi.json (a test keeps the two equal).
enum ControlOpenAPI {
    static let document = #"""
    {
      "openapi": "3.0.3",
      "info": {
        "title": "MockAPNs control API",
        "version": "1.0.0",
        "description": "Plain HTTP/1.1 JSON on loopback (default 127.0.0.1:2198). Read the journal, wait for notifications, and change the server's registry, clock, feedback queue and scenario while it runs. Every bad parameter is answered 400 with {\"error\":...,\"parameter\":...}."
      },
      "paths": {
        "/": {
          "get": {
            "summary": "The dashboard: a live page of notifications, connections, diagnoses, the scenario, devices and the clock",
            "description": "Plain HTML with /dashboard/style.css and /dashboard/app.js; every asset is compiled into the binary. The page follows /v1/events/stream.",
            "responses": {
              "200": {
                "description": "The dashboard page",
                "content": {
                  "text/html": {
                    "schema": {
                      "type": "string"
                    }
                  }
                }
              }
            }
          }
        },
        "/openapi.json": {
          "get": {
            "summary": "This document",
            "responses": {
              "200": {
                "description": "The OpenAPI document",
                "content": {
                  "application/json": {
                    "schema": {
                      "type": "object"
                    }
                  }
                }
              }
            }
          }
        },
        "/dashboard/style.css": {
          "get": {
            "summary": "The dashboard's style sheet",
            "responses": {
              "200": {
                "description": "CSS",
                "content": {
                  "text/css": {
                    "schema": {
                      "type": "string"
                    }
                  }
                }
              }
            }
          }
        },
        "/dashboard/app.js": {
          "get": {
            "summary": "The dashboard's script",
            "responses": {
              "200": {
                "description": "JavaScript",
                "content": {
                  "text/javascript": {
                    "schema": {
                      "type": "string"
                    }
                  }
                }
              }
            }
          }
        },
        "/v1/health": {
          "get": {
            "summary": "Liveness and journal fill",
            "responses": {
              "200": {
                "description": "ok",
                "content": {
                  "application/json": {
                    "schema": {
                      "$ref": "#/components/schemas/Health"
                    }
                  }
                }
              }
            }
          }
        },
        "/v1/ports": {
          "get": {
            "summary": "Bound ports",
            "responses": {
              "200": {
                "description": "Ports",
                "content": {
                  "application/json": {
                    "schema": {
                      "$ref": "#/components/schemas/Ports"
                    }
                  }
                }
              },
              "503": {
                "description": "Bad parameter or body",
                "content": {
                  "application/json": {
                    "schema": {
                      "$ref": "#/components/schemas/Error"
                    }
                  }
                }
              }
            }
          }
        },
        "/v1/journal": {
          "get": {
            "summary": "Journal statistics",
            "responses": {
              "200": {
                "description": "Statistics",
                "content": {
                  "application/json": {
                    "schema": {
                      "$ref": "#/components/schemas/JournalStatistics"
                    }
                  }
                }
              }
            }
          },
          "delete": {
            "summary": "Clear the journal (sequence numbers keep rising)",
            "responses": {
              "200": {
                "description": "Cleared",
                "content": {
                  "application/json": {
                    "schema": {
                      "type": "object"
                    }
                  }
                }
              }
            }
          }
        },
        "/v1/notifications": {
          "get": {
            "summary": "Recorded notifications, oldest first",
            "parameters": [
              {
                "$ref": "#/components/parameters/token"
              },
              {
                "$ref": "#/components/parameters/topic"
              },
              {
                "$ref": "#/components/parameters/protocol"
              },
              {
                "$ref": "#/components/parameters/status"
              },
              {
                "$ref": "#/components/parameters/reason"
              },
              {
                "$ref": "#/components/parameters/accepted"
              },
              {
                "$ref": "#/components/parameters/connection"
              },
              {
                "$ref": "#/components/parameters/after"
              },
              {
                "$ref": "#/components/parameters/limit"
              }
            ],
            "responses": {
              "200": {
                "description": "Notifications",
                "content": {
                  "application/json": {
                    "schema": {
                      "$ref": "#/components/schemas/NotificationList"
                    }
                  }
                }
              },
              "400": {
                "$ref": "#/components/responses/BadRequest"
              }
            }
          }
        },
        "/v1/notifications/wait": {
          "get": {
            "summary": "Long poll: answers as soon as `count` matching notifications are recorded (earlier ones count), or at the timeout with what there is",
            "parameters": [
              {
                "name": "count",
                "in": "query",
                "required": true,
                "description": "How many to wait for",
                "schema": {
                  "type": "integer",
                  "minimum": 1,
                  "maximum": 100000
                }
              },
              {
                "name": "timeout",
                "in": "query",
                "required": false,
                "description": "Milliseconds (default 10000, at most 300000)",
                "schema": {
                  "type": "integer",
                  "minimum": 0,
                  "maximum": 300000
                }
              },
              {
                "$ref": "#/components/parameters/token"
              },
              {
                "$ref": "#/components/parameters/topic"
              },
              {
                "$ref": "#/components/parameters/protocol"
              },
              {
                "$ref": "#/components/parameters/status"
              },
              {
                "$ref": "#/components/parameters/reason"
              },
              {
                "$ref": "#/components/parameters/accepted"
              },
              {
                "$ref": "#/components/parameters/connection"
              },
              {
                "$ref": "#/components/parameters/after"
              },
              {
                "$ref": "#/components/parameters/limit"
              }
            ],
            "responses": {
              "200": {
                "description": "Notifications, with complete=false on timeout",
                "content": {
                  "application/json": {
                    "schema": {
                      "$ref": "#/components/schemas/NotificationList"
                    }
                  }
                }
              },
              "400": {
                "$ref": "#/components/responses/BadRequest"
              }
            }
          }
        },
        "/v1/events": {
          "get": {
            "summary": "Journal events, oldest first",
            "parameters": [
              {
                "name": "type",
                "in": "query",
                "required": false,
                "description": "Comma-separated kinds: connectionOpened, connectionClosed, tlsEstablished, tlsFailed, http2Frame, legacyFrame, notification, fault, feedbackTuple, diagnosis",
                "schema": {
                  "type": "string"
                }
              },
              {
                "$ref": "#/components/parameters/connection"
              },
              {
                "name": "stream",
                "in": "query",
                "required": false,
                "description": "HTTP/2 stream id",
                "schema": {
                  "type": "integer",
                  "minimum": 0
                }
              },
              {
                "name": "protocol",
                "in": "query",
                "required": false,
                "description": "Transport of the connection",
                "schema": {
                  "type": "string",
                  "enum": [
                    "http2",
                    "legacy",
                    "feedback"
                  ]
                }
              },
              {
                "name": "after",
                "in": "query",
                "required": false,
                "description": "Only events after this sequence number",
                "schema": {
                  "type": "integer",
                  "minimum": 0
                }
              },
              {
                "$ref": "#/components/parameters/limit"
              },
              {
                "name": "wait",
                "in": "query",
                "required": false,
                "description": "When nothing matches yet, wait up to this many milliseconds for the next matching event",
                "schema": {
                  "type": "integer",
                  "minimum": 1,
                  "maximum": 300000
                }
              }
            ],
            "responses": {
              "200": {
                "description": "Events",
                "content": {
                  "application/json": {
                    "schema": {
                      "$ref": "#/components/schemas/EventList"
                    }
                  }
                }
              },
              "400": {
                "$ref": "#/components/responses/BadRequest"
              }
            }
          }
        },
        "/v1/events/stream": {
          "get": {
            "summary": "Journal events as they are recorded, as Server-Sent Events",
            "description": "Each event is one SSE message: `id` is its sequence number, `data` its JSON (as in GET /v1/events). With `after` (or a `Last-Event-ID` header, which wins: browsers send it when they reconnect) the events already recorded after that sequence number come first. Each stream has a bounded buffer: when the reader falls behind, the oldest waiting events are dropped and an `event: skipped` message with data {\"skipped\": N} says how many. Writes come at most every 250 ms, with everything gathered since; a comment line is sent every 10 seconds while nothing happens.",
            "parameters": [
              {
                "name": "type",
                "in": "query",
                "required": false,
                "description": "Comma-separated event kinds to stream (as in GET /v1/events); default all",
                "schema": {
                  "type": "string"
                }
              },
              {
                "name": "after",
                "in": "query",
                "required": false,
                "description": "Start with the events recorded after this sequence number (0: everything the journal holds); default: only new events",
                "schema": {
                  "type": "integer",
                  "minimum": 0
                }
              },
              {
                "name": "buffer",
                "in": "query",
                "required": false,
                "description": "How many events may wait for this reader before the oldest are dropped",
                "schema": {
                  "type": "integer",
                  "minimum": 1,
                  "maximum": 100000,
                  "default": 1000
                }
              },
              {
                "name": "Last-Event-ID",
                "in": "header",
                "required": false,
                "description": "The last sequence number received; the stream resumes after it",
                "schema": {
                  "type": "integer",
                  "minimum": 0
                }
              }
            ],
            "responses": {
              "200": {
                "description": "An endless text/event-stream",
                "content": {
                  "text/event-stream": {
                    "schema": {
                      "type": "string"
                    }
                  }
                }
              },
              "400": {
                "$ref": "#/components/responses/BadRequest"
              }
            }
          }
        },
        "/v1/scenario": {
          "get": {
            "summary": "The running scenario",
            "responses": {
              "200": {
                "description": "Scenario summary",
                "content": {
                  "application/json": {
                    "schema": {
                      "$ref": "#/components/schemas/ScenarioSummary"
                    }
                  }
                }
              }
            }
          },
          "put": {
            "summary": "Replace the running scenario (scenario JSON as body); a broken file changes nothing",
            "requestBody": {
              "required": true,
              "content": {
                "application/json": {
                  "schema": {
                    "type": "object"
                  }
                }
              }
            },
            "responses": {
              "200": {
                "description": "The new scenario's summary",
                "content": {
                  "application/json": {
                    "schema": {
                      "$ref": "#/components/schemas/ScenarioSummary"
                    }
                  }
                }
              },
              "400": {
                "$ref": "#/components/responses/BadRequest"
              }
            }
          }
        },
        "/v1/registry/{token}/unregister": {
          "post": {
            "summary": "Unregister a token since a time (queues a feedback tuple the first time)",
            "parameters": [
              {
                "$ref": "#/components/parameters/tokenPath"
              }
            ],
            "requestBody": {
              "required": false,
              "content": {
                "application/json": {
                  "schema": {
                    "type": "object",
                    "additionalProperties": false,
                    "properties": {
                      "since": {
                        "type": "integer",
                        "description": "Milliseconds since 1970; default now"
                      },
                      "topic": {
                        "type": "string"
                      }
                    }
                  }
                }
              }
            },
            "responses": {
              "200": {
                "description": "Done",
                "content": {
                  "application/json": {
                    "schema": {
                      "type": "object"
                    }
                  }
                }
              },
              "400": {
                "$ref": "#/components/responses/BadRequest"
              }
            }
          }
        },
        "/v1/registry/{token}/expire": {
          "post": {
            "summary": "Expire a token (410 ExpiredToken)",
            "parameters": [
              {
                "$ref": "#/components/parameters/tokenPath"
              }
            ],
            "requestBody": {
              "required": false,
              "content": {
                "application/json": {
                  "schema": {
                    "type": "object",
                    "additionalProperties": false,
                    "properties": {
                      "since": {
                        "type": "integer"
                      }
                    }
                  }
                }
              }
            },
            "responses": {
              "200": {
                "description": "Done",
                "content": {
                  "application/json": {
                    "schema": {
                      "type": "object"
                    }
                  }
                }
              },
              "400": {
                "$ref": "#/components/responses/BadRequest"
              }
            }
          }
        },
        "/v1/registry/{token}/topics": {
          "put": {
            "summary": "Bind a token to topics (others get DeviceTokenNotForTopic)",
            "parameters": [
              {
                "$ref": "#/components/parameters/tokenPath"
              }
            ],
            "requestBody": {
              "required": true,
              "content": {
                "application/json": {
                  "schema": {
                    "type": "object",
                    "additionalProperties": false,
                    "required": [
                      "topics"
                    ],
                    "properties": {
                      "topics": {
                        "type": "array",
                        "items": {
                          "type": "string"
                        }
                      }
                    }
                  }
                }
              }
            },
            "responses": {
              "200": {
                "description": "Done",
                "content": {
                  "application/json": {
                    "schema": {
                      "type": "object"
                    }
                  }
                }
              },
              "400": {
                "$ref": "#/components/responses/BadRequest"
              }
            }
          }
        },
        "/v1/registry/{token}/environment": {
          "put": {
            "summary": "Bind a token to one environment",
            "parameters": [
              {
                "$ref": "#/components/parameters/tokenPath"
              }
            ],
            "requestBody": {
              "required": true,
              "content": {
                "application/json": {
                  "schema": {
                    "type": "object",
                    "additionalProperties": false,
                    "required": [
                      "environment"
                    ],
                    "properties": {
                      "environment": {
                        "type": "string",
                        "enum": [
                          "sandbox",
                          "production"
                        ]
                      }
                    }
                  }
                }
              }
            },
            "responses": {
              "200": {
                "description": "Done",
                "content": {
                  "application/json": {
                    "schema": {
                      "type": "object"
                    }
                  }
                }
              },
              "400": {
                "$ref": "#/components/responses/BadRequest"
              }
            }
          }
        },
        "/v1/registry/{token}/reactivate": {
          "post": {
            "summary": "Make a token deliverable again",
            "parameters": [
              {
                "$ref": "#/components/parameters/tokenPath"
              }
            ],
            "responses": {
              "200": {
                "description": "Done",
                "content": {
                  "application/json": {
                    "schema": {
                      "type": "object"
                    }
                  }
                }
              },
              "400": {
                "$ref": "#/components/responses/BadRequest"
              }
            }
          }
        },
        "/v1/registry/{token}": {
          "delete": {
            "summary": "Forget a token (queued feedback stays)",
            "parameters": [
              {
                "$ref": "#/components/parameters/tokenPath"
              }
            ],
            "responses": {
              "200": {
                "description": "Done",
                "content": {
                  "application/json": {
                    "schema": {
                      "type": "object"
                    }
                  }
                }
              },
              "400": {
                "$ref": "#/components/responses/BadRequest"
              }
            }
          }
        },
        "/v1/feedback": {
          "get": {
            "summary": "Queued feedback entries",
            "responses": {
              "200": {
                "description": "Entries",
                "content": {
                  "application/json": {
                    "schema": {
                      "$ref": "#/components/schemas/FeedbackList"
                    }
                  }
                }
              }
            }
          },
          "post": {
            "summary": "Queue a feedback tuple: marks the token unregistered since the time",
            "requestBody": {
              "required": true,
              "content": {
                "application/json": {
                  "schema": {
                    "type": "object",
                    "additionalProperties": false,
                    "required": [
                      "deviceToken"
                    ],
                    "properties": {
                      "deviceToken": {
                        "type": "string"
                      },
                      "timestamp": {
                        "type": "integer",
                        "description": "Milliseconds since 1970; default now"
                      },
                      "topic": {
                        "type": "string"
                      }
                    }
                  }
                }
              }
            },
            "responses": {
              "200": {
                "description": "Entries",
                "content": {
                  "application/json": {
                    "schema": {
                      "$ref": "#/components/schemas/FeedbackList"
                    }
                  }
                }
              },
              "400": {
                "$ref": "#/components/responses/BadRequest"
              }
            }
          }
        },
        "/v1/clock": {
          "get": {
            "summary": "The server clock",
            "responses": {
              "200": {
                "description": "Clock",
                "content": {
                  "application/json": {
                    "schema": {
                      "$ref": "#/components/schemas/Clock"
                    }
                  }
                }
              }
            }
          },
          "put": {
            "summary": "Pin the clock",
            "requestBody": {
              "required": true,
              "content": {
                "application/json": {
                  "schema": {
                    "type": "object",
                    "additionalProperties": false,
                    "properties": {
                      "millisecondsSince1970": {
                        "type": "integer"
                      },
                      "time": {
                        "type": "string",
                        "example": "2026-01-01T00:00:00Z"
                      }
                    },
                    "description": "Exactly one of the two"
                  }
                }
              }
            },
            "responses": {
              "200": {
                "description": "Clock",
                "content": {
                  "application/json": {
                    "schema": {
                      "$ref": "#/components/schemas/Clock"
                    }
                  }
                }
              },
              "400": {
                "$ref": "#/components/responses/BadRequest"
              }
            }
          }
        },
        "/v1/clock/advance": {
          "post": {
            "summary": "Move the clock (negative moves it back)",
            "requestBody": {
              "required": true,
              "content": {
                "application/json": {
                  "schema": {
                    "type": "object",
                    "additionalProperties": false,
                    "required": [
                      "milliseconds"
                    ],
                    "properties": {
                      "milliseconds": {
                        "type": "integer"
                      }
                    }
                  }
                }
              }
            },
            "responses": {
              "200": {
                "description": "Clock",
                "content": {
                  "application/json": {
                    "schema": {
                      "$ref": "#/components/schemas/Clock"
                    }
                  }
                }
              },
              "400": {
                "$ref": "#/components/responses/BadRequest"
              }
            }
          }
        },
        "/v1/clock/resume": {
          "post": {
            "summary": "Follow real time again from the current reading",
            "responses": {
              "200": {
                "description": "Clock",
                "content": {
                  "application/json": {
                    "schema": {
                      "$ref": "#/components/schemas/Clock"
                    }
                  }
                }
              }
            }
          }
        },
        "/v1/legacy/shutdown": {
          "post": {
            "summary": "Status 10 to every open legacy gateway connection; answers once they closed",
            "responses": {
              "200": {
                "description": "Done",
                "content": {
                  "application/json": {
                    "schema": {
                      "type": "object"
                    }
                  }
                }
              }
            }
          }
        },
        "/v1/reasons": {
          "get": {
            "summary": "Every refusal reason with its HTTP status and what Apple says it means",
            "responses": {
              "200": {
                "description": "The reasons",
                "content": {
                  "application/json": {
                    "schema": {
                      "type": "object",
                      "properties": {
                        "reasons": {
                          "type": "array",
                          "items": {
                            "type": "object",
                            "properties": {
                              "reason": {
                                "type": "string"
                              },
                              "status": {
                                "type": "integer"
                              },
                              "meaning": {
                                "type": "string"
                              }
                            }
                          }
                        }
                      }
                    }
                  }
                }
              }
            }
          }
        }
      },
      "components": {
        "parameters": {
          "token": {
            "name": "token",
            "in": "query",
            "required": false,
            "description": "Device token (any letter case)",
            "schema": {
              "type": "string"
            }
          },
          "topic": {
            "name": "topic",
            "in": "query",
            "required": false,
            "description": "apns-topic",
            "schema": {
              "type": "string"
            }
          },
          "protocol": {
            "name": "protocol",
            "in": "query",
            "required": false,
            "description": "Transport",
            "schema": {
              "type": "string",
              "enum": [
                "http2",
                "legacy",
                "feedback"
              ]
            }
          },
          "status": {
            "name": "status",
            "in": "query",
            "required": false,
            "description": "HTTP status answered",
            "schema": {
              "type": "integer",
              "minimum": 100,
              "maximum": 599
            }
          },
          "reason": {
            "name": "reason",
            "in": "query",
            "required": false,
            "description": "Refusal reason, e.g. BadDeviceToken",
            "schema": {
              "type": "string"
            }
          },
          "accepted": {
            "name": "accepted",
            "in": "query",
            "required": false,
            "description": "Only accepted (true) or refused (false)",
            "schema": {
              "type": "boolean"
            }
          },
          "connection": {
            "name": "connection",
            "in": "query",
            "required": false,
            "description": "Connection id",
            "schema": {
              "type": "integer",
              "minimum": 1
            }
          },
          "after": {
            "name": "after",
            "in": "query",
            "required": false,
            "description": "Only records after this sequence number",
            "schema": {
              "type": "integer",
              "minimum": 0
            }
          },
          "limit": {
            "name": "limit",
            "in": "query",
            "required": false,
            "description": "At most this many (default 1000)",
            "schema": {
              "type": "integer",
              "minimum": 1,
              "maximum": 100000
            }
          },
          "tokenPath": {
            "name": "token",
            "in": "path",
            "required": true,
            "description": "Device token, 1 to 200 hex digits",
            "schema": {
              "type": "string",
              "pattern": "^[0-9a-fA-F]{1,200}$"
            }
          }
        },
        "responses": {
          "BadRequest": {
            "description": "Bad parameter or body",
            "content": {
              "application/json": {
                "schema": {
                  "$ref": "#/components/schemas/Error"
                }
              }
            }
          }
        },
        "schemas": {
          "Error": {
            "type": "object",
            "required": [
              "error"
            ],
            "properties": {
              "error": {
                "type": "string"
              },
              "parameter": {
                "type": "string",
                "description": "Query parameter, path segment, JSON path or body"
              }
            }
          },
          "Health": {
            "type": "object",
            "properties": {
              "status": {
                "type": "string"
              },
              "journal": {
                "$ref": "#/components/schemas/JournalStatistics"
              }
            }
          },
          "Ports": {
            "type": "object",
            "properties": {
              "http2": {
                "type": "integer"
              },
              "gateway": {
                "type": "integer"
              },
              "feedback": {
                "type": "integer"
              },
              "control": {
                "type": "integer"
              }
            }
          },
          "JournalStatistics": {
            "type": "object",
            "properties": {
              "count": {
                "type": "integer"
              },
              "capacity": {
                "type": "integer"
              },
              "dropped": {
                "type": "integer",
                "description": "Events pushed out because the journal was full"
              },
              "lastSequence": {
                "type": "integer"
              },
              "frames": {
                "type": "boolean"
              }
            }
          },
          "Notification": {
            "type": "object",
            "properties": {
              "seq": {
                "type": "integer"
              },
              "time": {
                "type": "integer"
              },
              "connection": {
                "type": "integer"
              },
              "stream": {
                "type": "integer"
              },
              "transport": {
                "type": "string"
              },
              "deviceToken": {
                "type": "string"
              },
              "topic": {
                "type": "string"
              },
              "pushType": {
                "type": "string"
              },
              "apnsId": {
                "type": "string"
              },
              "priority": {
                "type": "integer"
              },
              "expiration": {
                "type": "integer"
              },
              "collapseId": {
                "type": "string"
              },
              "identifier": {
                "type": "integer"
              },
              "command": {
                "type": "integer",
                "description": "The legacy command byte"
              },
              "payloadLength": {
                "type": "integer"
              },
              "payload": {
                "type": "string"
              },
              "payloadHex": {
                "type": "string"
              },
              "payloadTruncated": {
                "type": "boolean"
              },
              "authentication": {
                "type": "object",
                "properties": {
                  "kind": {
                    "type": "string",
                    "enum": [
                      "certificate",
                      "providerToken",
                      "none",
                      "missing",
                      "rejected",
                      "unverified"
                    ]
                  },
                  "teamId": {
                    "type": "string"
                  },
                  "keyId": {
                    "type": "string"
                  },
                  "refusal": {
                    "type": "string"
                  }
                }
              },
              "accepted": {
                "type": "boolean"
              },
              "status": {
                "type": "integer"
              },
              "reason": {
                "type": "string"
              },
              "responseApnsId": {
                "type": "string"
              },
              "timestamp": {
                "type": "integer"
              },
              "legacyStatus": {
                "type": "integer"
              },
              "problem": {
                "type": "string",
                "description": "Why the legacy codec refused the frame, or why HTTP/2 refused the stream and what its RST_STREAM means"
              },
              "dropped": {
                "type": "boolean"
              }
            }
          },
          "NotificationList": {
            "type": "object",
            "properties": {
              "notifications": {
                "type": "array",
                "items": {
                  "$ref": "#/components/schemas/Notification"
                }
              },
              "count": {
                "type": "integer"
              },
              "lastSequence": {
                "type": "integer"
              },
              "complete": {
                "type": "boolean"
              }
            }
          },
          "Event": {
            "type": "object",
            "required": [
              "seq",
              "time",
              "mono",
              "type"
            ],
            "additionalProperties": true,
            "properties": {
              "seq": {
                "type": "integer"
              },
              "time": {
                "type": "integer"
              },
              "mono": {
                "type": "integer",
                "description": "Monotonic nanoseconds"
              },
              "connection": {
                "type": "integer"
              },
              "stream": {
                "type": "integer"
              },
              "type": {
                "type": "string"
              }
            }
          },
          "EventList": {
            "type": "object",
            "properties": {
              "events": {
                "type": "array",
                "items": {
                  "$ref": "#/components/schemas/Event"
                }
              },
              "lastSequence": {
                "type": "integer"
              },
              "dropped": {
                "type": "integer"
              }
            }
          },
          "ScenarioSummary": {
            "type": "object",
            "properties": {
              "name": {
                "type": "string"
              },
              "description": {
                "type": "string"
              },
              "seed": {
                "type": "integer"
              },
              "rules": {
                "type": "integer"
              },
              "initialState": {
                "type": "string"
              }
            }
          },
          "FeedbackList": {
            "type": "object",
            "properties": {
              "feedback": {
                "type": "array",
                "items": {
                  "type": "object",
                  "properties": {
                    "deviceToken": {
                      "type": "string"
                    },
                    "timestamp": {
                      "type": "integer"
                    },
                    "topic": {
                      "type": "string"
                    },
                    "environment": {
                      "type": "string"
                    }
                  }
                }
              }
            }
          },
          "Clock": {
            "type": "object",
            "properties": {
              "millisecondsSince1970": {
                "type": "integer"
              },
              "time": {
                "type": "string"
              },
              "fixed": {
                "type": "boolean"
              }
            }
          }
        }
      }
    }
    """#
}
