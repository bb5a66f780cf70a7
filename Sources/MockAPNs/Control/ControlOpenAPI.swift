/// The OpenAPI 3 description of the control API, served at `GET /openapi.json`. The same
/// text is committed as docs/control-api.openapi.json (a test keeps the two equal).
enum ControlOpenAPI {
    static let document = #"""
    {
      "openapi": "3.0.3",
      "info": {
        "title": "MockAPNs control API",
        "version": "1.0.0",
        "description": "Plain HTTP/1.1 JSON on loopback (default 127.0.0.1:2198). Read the journal, wait for notifications, and change the server's registry, clock, feedback queue and scenario while it runs. Every bad parameter is answered 400 with {\"error\":...,\"parameter\":...}. A path the API does not have is answered 404 with the same JSON shape."
      },
      "paths": {
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
                "description": "The server is not listening (yet, or any more)",
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
                "description": "Comma-separated kinds: connectionOpened, connectionClosed, tlsEstablished, tlsFailed, http2Frame, legacyFrame, notification, fault, feedbackTuple, diagnosis, broadcast, channelOperation",
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
                    "feedback",
                    "channelManagement"
                  ]
                }
              },
              {
                "name": "channel",
                "in": "query",
                "required": false,
                "description": "Only broadcast and channelOperation events concerning this broadcast channel id (base64; percent-encode + and /)",
                "schema": {
                  "type": "string"
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
                        "minimum": 0,
                        "maximum": 4294967295999,
                        "description": "Milliseconds since 1970; default now. A feedback tuple carries 32-bit seconds, so at most 4294967295999 (2106-02-07)"
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
        "/v1/channels": {
          "get": {
            "summary": "List broadcast channels (the registry the channel management API and broadcasts use)",
            "parameters": [
              {
                "name": "bundleId",
                "in": "query",
                "required": false,
                "description": "Only this app's channels",
                "schema": {
                  "type": "string"
                }
              },
              {
                "name": "environment",
                "in": "query",
                "required": false,
                "description": "Only channels of this environment",
                "schema": {
                  "type": "string",
                  "enum": [
                    "sandbox",
                    "production"
                  ]
                }
              }
            ],
            "responses": {
              "200": {
                "description": "The channels, grouped by environment and bundle id, oldest first",
                "content": {
                  "application/json": {
                    "schema": {
                      "type": "object",
                      "properties": {
                        "channels": {
                          "type": "array",
                          "items": {
                            "$ref": "#/components/schemas/Channel"
                          }
                        }
                      }
                    }
                  }
                }
              },
              "400": {
                "$ref": "#/components/responses/BadRequest"
              }
            }
          },
          "post": {
            "summary": "Add a channel (or replace the one with the same id); the channel limit does not apply",
            "requestBody": {
              "required": true,
              "content": {
                "application/json": {
                  "schema": {
                    "type": "object",
                    "required": [
                      "bundleId"
                    ],
                    "additionalProperties": false,
                    "properties": {
                      "bundleId": {
                        "type": "string"
                      },
                      "id": {
                        "type": "string",
                        "description": "Base64 channel id; a fresh random one when absent"
                      },
                      "messageStoragePolicy": {
                        "type": "integer",
                        "enum": [
                          0,
                          1
                        ],
                        "description": "0: No Messages Stored, 1: Most Recent Message Stored (default)"
                      },
                      "environment": {
                        "type": "string",
                        "enum": [
                          "sandbox",
                          "production"
                        ],
                        "description": "Default: the server's"
                      }
                    }
                  }
                }
              }
            },
            "responses": {
              "201": {
                "description": "The channel",
                "content": {
                  "application/json": {
                    "schema": {
                      "$ref": "#/components/schemas/Channel"
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
        "/v1/channels/{id}": {
          "delete": {
            "summary": "Delete a broadcast channel",
            "parameters": [
              {
                "name": "id",
                "in": "path",
                "required": true,
                "description": "The channel id, percent-encoded (base64 has + and /)",
                "schema": {
                  "type": "string"
                }
              }
            ],
            "responses": {
              "200": {
                "description": "Deleted",
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
              },
              "404": {
                "description": "No channel has this id",
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
        "/v1/reset": {
          "post": {
            "summary": "Put the server back as the configuration started it: clear the journal, the device registry (then the scenario's entries again) and the feedback queue and the broadcast channels (back to the configured ones), restart the scenario (counts, state, random streams from the same seed), set the clock back; says what it cleared",
            "responses": {
              "200": {
                "description": "What was cleared",
                "content": {
                  "application/json": {
                    "schema": {
                      "$ref": "#/components/schemas/Reset"
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
        "/metrics": {
          "get": {
            "summary": "Metrics in the Prometheus text format: notifications by protocol, status and reason; connections open and in total by listener and port; TLS handshake failures by cause; scenario actions fired by rule; journal events and drops; request handling time as a histogram",
            "responses": {
              "200": {
                "description": "Prometheus text exposition format 0.0.4",
                "content": {
                  "text/plain": {
                    "schema": {
                      "type": "string"
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
          },
          "NotFound": {
            "description": "No such endpoint (or not with this method)",
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
              },
              "channelManagement": {
                "type": "integer",
                "description": "The broadcast channel management listener, when it runs"
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
              },
              "state": {
                "type": "string",
                "description": "The named state rules are in now"
              },
              "requests": {
                "type": "integer",
                "description": "Requests the scenario has numbered since it started (or was reset)"
              },
              "firings": {
                "type": "array",
                "description": "Each rule, in order, with how often it has fired",
                "items": {
                  "type": "object",
                  "properties": {
                    "rule": {
                      "type": "string"
                    },
                    "fired": {
                      "type": "integer"
                    },
                    "times": {
                      "type": "integer",
                      "description": "The rule's limit, when it has one"
                    }
                  }
                }
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
          },
          "Channel": {
            "type": "object",
            "properties": {
              "id": {
                "type": "string",
                "description": "Base64 channel id"
              },
              "bundleId": {
                "type": "string"
              },
              "environment": {
                "type": "string",
                "enum": [
                  "sandbox",
                  "production"
                ]
              },
              "messageStoragePolicy": {
                "type": "integer",
                "enum": [
                  0,
                  1
                ]
              },
              "pushType": {
                "type": "string",
                "enum": [
                  "LiveActivity"
                ]
              },
              "createdAt": {
                "type": "integer",
                "description": "Milliseconds since 1970, server clock"
              }
            }
          },
          "Reset": {
            "type": "object",
            "properties": {
              "cleared": {
                "type": "object",
                "properties": {
                  "journalEvents": {
                    "type": "integer",
                    "description": "Events the journal held"
                  },
                  "registryTokens": {
                    "type": "integer",
                    "description": "Device tokens the registry knew before the scenario's entries were applied again"
                  },
                  "feedbackEntries": {
                    "type": "integer",
                    "description": "Feedback tuples that were queued"
                  },
                  "broadcastChannels": {
                    "type": "integer",
                    "description": "Broadcast channels there were before the configured ones were added again"
                  },
                  "scenario": {
                    "type": "object",
                    "description": "The scenario started over: what it had counted",
                    "properties": {
                      "name": {
                        "type": "string"
                      },
                      "requests": {
                        "type": "integer"
                      },
                      "firings": {
                        "type": "integer"
                      },
                      "state": {
                        "type": "string"
                      }
                    }
                  }
                }
              },
              "seed": {
                "type": "integer",
                "description": "The seed the restarted scenario draws from (unchanged)"
              },
              "clock": {
                "type": "object",
                "properties": {
                  "millisecondsSince1970": {
                    "type": "integer"
                  },
                  "fixed": {
                    "type": "boolean",
                    "description": "Pinned at the configured start (--clock), or following real time"
                  }
                }
              }
            }
          }
        }
      }
    }
    """#
}
