; Household domain of l3mp: the world-state graph of a home and the robot's actions.
;
; Every predicate is one kind of knowledge-graph triplet (see README, "Data model"):
;   unary   (light_on l)      -> (l, light_on, true)
;   binary  (on book1 table1) -> (book1, on, table1)
; Closed world: a fact that is not in the graph is false.
; World-state rules (an item is in exactly one place, ...) are in household.rules.yaml.
(define (domain household)
  (:requirements :strips :typing :negative-preconditions :universal-preconditions
                 :existential-preconditions :disjunctive-preconditions)
  (:types
    room locatable item - object
    agent fixture - locatable
    robot person - agent
    receptacle device - fixture
    surface container - receptacle
    table counter shelf sink - surface
    fridge cupboard dishwasher - container
    light faucet tv - device
    food drink dish book phone - item)

  (:constants the_robot - robot)

  (:predicates
    ; where things are
    (in_room ?x - locatable ?r - room)      ; agents and fixtures are in a room
    (on ?i - item ?s - surface)             ; item lies on a table, counter, shelf or in a sink
    (inside ?i - item ?c - container)       ; item is inside a fridge, cupboard or dishwasher
    (holding ?r - robot ?i - item)          ; the robot carries the item
    (has ?p - person ?i - item)             ; a person has the item
    (hand_empty ?r - robot)
    ; state of fixtures and items
    (is_open ?c - container)
    (light_on ?l - light)
    (faucet_on ?f - faucet)
    (tv_on ?t - tv)
    (faucet_of ?f - faucet ?s - sink)
    (ringing ?p - phone)
    (dirty ?d - dish))

  (:action move
    :parameters (?r - robot ?from - room ?to - room)
    :precondition (and (in_room ?r ?from) (not (in_room ?r ?to)))
    :effect (and (not (in_room ?r ?from)) (in_room ?r ?to)))

  (:action pick_from_surface
    :parameters (?r - robot ?i - item ?s - surface ?room - room)
    :precondition (and (in_room ?r ?room) (in_room ?s ?room) (on ?i ?s) (hand_empty ?r))
    :effect (and (not (on ?i ?s)) (not (hand_empty ?r)) (holding ?r ?i)))

  (:action pick_from_container
    :parameters (?r - robot ?i - item ?c - container ?room - room)
    :precondition (and (in_room ?r ?room) (in_room ?c ?room) (is_open ?c) (inside ?i ?c)
                       (hand_empty ?r))
    :effect (and (not (inside ?i ?c)) (not (hand_empty ?r)) (holding ?r ?i)))

  (:action place_on_surface
    :parameters (?r - robot ?i - item ?s - surface ?room - room)
    :precondition (and (in_room ?r ?room) (in_room ?s ?room) (holding ?r ?i))
    :effect (and (not (holding ?r ?i)) (hand_empty ?r) (on ?i ?s)))

  (:action place_inside
    :parameters (?r - robot ?i - item ?c - container ?room - room)
    :precondition (and (in_room ?r ?room) (in_room ?c ?room) (is_open ?c) (holding ?r ?i))
    :effect (and (not (holding ?r ?i)) (hand_empty ?r) (inside ?i ?c)))

  (:action open_container
    :parameters (?r - robot ?c - container ?room - room)
    :precondition (and (in_room ?r ?room) (in_room ?c ?room) (not (is_open ?c)))
    :effect (is_open ?c))

  (:action close_container
    :parameters (?r - robot ?c - container ?room - room)
    :precondition (and (in_room ?r ?room) (in_room ?c ?room) (is_open ?c))
    :effect (not (is_open ?c)))

  (:action turn_on_light
    :parameters (?r - robot ?l - light ?room - room)
    :precondition (and (in_room ?r ?room) (in_room ?l ?room) (not (light_on ?l)))
    :effect (light_on ?l))

  (:action turn_off_light
    :parameters (?r - robot ?l - light ?room - room)
    :precondition (and (in_room ?r ?room) (in_room ?l ?room) (light_on ?l))
    :effect (not (light_on ?l)))

  (:action turn_on_faucet
    :parameters (?r - robot ?f - faucet ?room - room)
    :precondition (and (in_room ?r ?room) (in_room ?f ?room) (not (faucet_on ?f)))
    :effect (faucet_on ?f))

  (:action turn_off_faucet
    :parameters (?r - robot ?f - faucet ?room - room)
    :precondition (and (in_room ?r ?room) (in_room ?f ?room) (faucet_on ?f))
    :effect (not (faucet_on ?f)))

  (:action turn_on_tv
    :parameters (?r - robot ?t - tv ?room - room)
    :precondition (and (in_room ?r ?room) (in_room ?t ?room) (not (tv_on ?t)))
    :effect (tv_on ?t))

  (:action turn_off_tv
    :parameters (?r - robot ?t - tv ?room - room)
    :precondition (and (in_room ?r ?room) (in_room ?t ?room) (tv_on ?t))
    :effect (not (tv_on ?t)))

  (:action wash_dish
    :parameters (?r - robot ?d - dish ?s - sink ?f - faucet ?room - room)
    :precondition (and (in_room ?r ?room) (in_room ?s ?room) (in_room ?f ?room) (faucet_of ?f ?s)
                       (faucet_on ?f) (holding ?r ?d) (dirty ?d))
    :effect (not (dirty ?d)))

  (:action give
    :parameters (?r - robot ?i - item ?p - person ?room - room)
    :precondition (and (in_room ?r ?room) (in_room ?p ?room) (holding ?r ?i))
    :effect (and (not (holding ?r ?i)) (hand_empty ?r) (has ?p ?i)))

  (:action take_from_person
    :parameters (?r - robot ?i - item ?p - person ?room - room)
    :precondition (and (in_room ?r ?room) (in_room ?p ?room) (has ?p ?i) (hand_empty ?r))
    :effect (and (not (has ?p ?i)) (not (hand_empty ?r)) (holding ?r ?i)))

  (:action answer_phone
    :parameters (?r - robot ?ph - phone)
    :precondition (and (holding ?r ?ph) (ringing ?ph))
    :effect (not (ringing ?ph))))
